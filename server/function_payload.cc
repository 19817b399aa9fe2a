#include "server/function_payload.h"

#include <cstdint>

#include "storage/rdb_format.h"

namespace sluice::server {
namespace {

constexpr uint8_t kOpcodeFunction2 = 245;      // RDB_OPCODE_FUNCTION2
constexpr uint8_t kOpcodeFunctionPreGa = 246;  // RDB_OPCODE_FUNCTION_PRE_GA

}  // namespace

std::string EncodeFunctionPayload(std::span<const std::string_view> codes) {
  std::string out;
  for (std::string_view code : codes) {
    out.push_back(static_cast<char>(kOpcodeFunction2));
    storage::AppendRdbString(&out, code);
  }
  storage::SealRdbPayload(&out);
  return out;
}

StatusOr<std::vector<std::string>> DecodeFunctionPayload(std::string_view payload) {
  if (!storage::RdbFooterValid(payload)) {
    return Err("DUMP payload version or checksum are wrong");
  }
  storage::RdbReader reader(payload.substr(0, payload.size() - storage::kRdbFooterSize));
  std::vector<std::string> codes;
  while (reader.remaining() > 0) {
    const auto type = reader.Byte();
    if (*type == kOpcodeFunctionPreGa) return Err("Pre-GA function format not supported");
    if (*type != kOpcodeFunction2) return Err("given type is not a function");
    auto code = reader.String();
    if (!code) return Err("Failed loading library payload");
    codes.push_back(std::move(*code));
  }
  return codes;
}

}  // namespace sluice::server
