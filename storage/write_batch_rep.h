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

namespace sluice::storage {

class WriteBatchRep {
 public:
  // `records` and `payload_bytes` (their keys' and values' bytes), when known, let the buffer
  // be allocated once; more records only grow it.
  WriteBatchRep(size_t records, size_t payload_bytes);

  void Put(uint32_t family_id, std::string_view key, std::string_view value);
  void Delete(uint32_t family_id, std::string_view key);

  rocksdb::WriteBatch Finish() &&;

 private:
  // Room for a record of `payload_bytes` and its overhead past used_.
  void Reserve(size_t payload_bytes);
  void Header(char default_type, char family_type, uint32_t family_id);
  void Varint32(uint32_t v);
  void Bytes(std::string_view bytes);

  std::string rep_;  // sized for the most the records can take; [0, used_) is written
  size_t used_ = 0;
  uint32_t count_ = 0;
};

}  // namespace sluice::storage
