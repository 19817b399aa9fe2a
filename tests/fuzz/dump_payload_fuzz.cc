// libFuzzer target: RESTORE's payload decoder (storage::DecodeDumpPayload), which reads what
// any client sends.
//
// Input: byte 0 chooses whether the rest is taken as a whole payload (its footer as given, so
// mostly refused at the checksum) or as a body that gets a valid footer (so the object parser
// is reached). Besides not crashing: a payload that decodes encodes (DUMP's way) into one that
// decodes to the same value, and an error is one of Redis's two texts.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "storage/dump_payload.h"
#include "storage/rdb_format.h"

namespace {

using sluice::storage::DecodeDumpPayload;
using sluice::storage::DumpValue;

bool SameValue(const DumpValue& a, const DumpValue& b) {
  if (a.type != b.type || a.bytes != b.bytes || a.elements != b.elements ||
      a.fields != b.fields || a.scored.size() != b.scored.size()) {
    return false;
  }
  for (size_t i = 0; i < a.scored.size(); ++i) {
    if (a.scored[i].member != b.scored[i].member || a.scored[i].score != b.scored[i].score) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) sluice::storage::SealRdbPayload(&payload);
  auto value = DecodeDumpPayload(payload);
  if (!value.ok()) {
    const std::string& message = value.status().message();
    if (message != "Bad data format" && message != "DUMP payload version or checksum are wrong") {
      std::abort();
    }
    return 0;
  }
  auto again = DecodeDumpPayload(sluice::storage::EncodeDumpPayload(*value));
  if (!again.ok() || !SameValue(*value, *again)) std::abort();
  return 0;
}
