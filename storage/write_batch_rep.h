#pragma once

// A rocksdb::WriteBatch built in its serialized form, which its constructor from a string takes
// and its WAL record holds (RocksDB's db/write_batch.cc): a 12-byte header (sequence: fixed64,
// set by the write; count: fixed32), then each record as a type byte, the column family's id
// as a varint32 unless it is the default family (0), and the key and the value as
// varint32-prefixed bytes. WriteBatch::Put looks the family's id and timestamp size up through
// its handle and grows its string field by field: about 450 instructions a record, and a
// commit over random keys writes one record a call. Here a record is a few stores.

#include <rocksdb/write_batch.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace sluice::storage {

// What WriteBatchRep builds: a WriteBatch whose buffer can be taken back once it is written,
// so that commits reuse one buffer (a new one of a commit's size, each time, was a tenth of
// the cost of building it).
class BuiltWriteBatch : public rocksdb::WriteBatch {
 public:
  explicit BuiltWriteBatch(std::string&& rep) : rocksdb::WriteBatch(std::move(rep)) {}
  // The serialized form's buffer; the batch is left empty and must not be used again.
  std::string TakeBuffer() && { return std::move(rep_); }
};

class WriteBatchRep {
 public:
  // `records` and `payload_bytes` (their keys' and values' bytes), when known, let the buffer
  // be sized once; more records only grow it. `buffer`: memory to reuse, its bytes dropped.
  WriteBatchRep(size_t records, size_t payload_bytes, std::string buffer = {});

  void Put(uint32_t family_id, std::string_view key, std::string_view value);
  void Delete(uint32_t family_id, std::string_view key);

  BuiltWriteBatch Finish() &&;

 private:
  // Room for a record of `payload_bytes` and its overhead past used_.
  void Reserve(size_t payload_bytes) {
    if (used_ + kMostRecordOverhead + payload_bytes > rep_.size()) Grow(payload_bytes);
  }
  void Grow(size_t payload_bytes);
  void Header(char default_type, char family_type, uint32_t family_id);
  void Varint32(uint32_t v);
  void Bytes(std::string_view bytes);

  // A record's type, family id and two lengths: 1 + 5 + 5 + 5 bytes at most.
  static constexpr size_t kMostRecordOverhead = 16;

  std::string rep_;  // sized for the most the records can take; [0, used_) is written
  size_t used_ = 0;
  uint32_t count_ = 0;
};

}  // namespace sluice::storage
