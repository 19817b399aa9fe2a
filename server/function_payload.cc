#include "server/function_payload.h"

#include <cstdint>

#include "storage/rdb_format.h"

namespace sluice::server {
namespace {

constexpr uint8_t kOpcodeFunction2 = 245;      // RDB_OPCODE_FUNCTION2
constexpr uint8_t kOpcodeFunctionPreGa = 246;  // RDB_OPCODE_FUNCTION_PRE_GA

// Redis 7.0-rc1/rc2's library record, which 7.0 still reads: the name, the engine, an optional
// description (dropped), then the code, which gets the header they stand for.
StatusOr<std::string> ReadPreGaLibrary(storage::RdbReader& reader) {
  auto name = reader.String();
  if (!name) return Err("Failed loading library name");
  auto engine = reader.String();
  if (!engine) return Err("Failed loading engine name");
  auto has_description = reader.Length();
  if (!has_description) return Err("Failed loading library description indicator");
  if (*has_description != 0 && !reader.String()) {
    return Err("Failed loading library description");
  }
  auto code = reader.String();
  if (!code) return Err("Failed loading library payload");
  return "#!" + *engine + " name=" + *name + "\n" + *code;
}

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
    if (*type == kOpcodeFunctionPreGa) {
      StatusOr<std::string> code = ReadPreGaLibrary(reader);
      if (!code.ok()) return code.status();
      codes.push_back(std::move(*code));
      continue;
    }
    if (*type != kOpcodeFunction2) return Err("given type is not a function");
    auto code = reader.String();
    if (!code) return Err("Failed loading library payload");
    codes.push_back(std::move(*code));
  }
  return codes;
}

}  // namespace sluice::server
