#include "storage/write_batch_rep.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <utility>

namespace sluice::storage {
namespace {

constexpr size_t kHeaderBytes = 12;  // sequence (fixed64), count (fixed32)
constexpr size_t kCountOffset = 8;
// RocksDB's ValueType bytes (db/dbformat.h), part of its WAL format.
constexpr char kTypeDeletion = 0x0;
constexpr char kTypeValue = 0x1;
constexpr char kTypeColumnFamilyDeletion = 0x4;
constexpr char kTypeColumnFamilyValue = 0x5;

}  // namespace

WriteBatchRep::WriteBatchRep(size_t records, size_t payload_bytes, std::string buffer)
    : rep_(std::move(buffer)), used_(kHeaderBytes) {
  rep_.assign(kHeaderBytes + records * kMostRecordOverhead + payload_bytes, '\0');
}

void WriteBatchRep::Grow(size_t payload_bytes) {
  rep_.resize(std::max(used_ + kMostRecordOverhead + payload_bytes, 2 * rep_.size()));
}

void WriteBatchRep::Header(char default_type, char family_type, uint32_t family_id) {
  ++count_;
  if (family_id == 0) {
    rep_[used_++] = default_type;
  } else {
    rep_[used_++] = family_type;
    Varint32(family_id);
  }
}

void WriteBatchRep::Varint32(uint32_t v) {
  while (v >= 0x80) {
    rep_[used_++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  rep_[used_++] = static_cast<char>(v);
}

void WriteBatchRep::Bytes(std::string_view bytes) {
  // WriteBatch::Put refuses more than 4 GiB; a record is far below (long strings are chunked).
  assert(bytes.size() <= std::numeric_limits<uint32_t>::max());
  Varint32(static_cast<uint32_t>(bytes.size()));
  if (!bytes.empty()) std::memcpy(rep_.data() + used_, bytes.data(), bytes.size());
  used_ += bytes.size();
}

void WriteBatchRep::Put(uint32_t family_id, std::string_view key, std::string_view value) {
  Reserve(key.size() + value.size());
  Header(kTypeValue, kTypeColumnFamilyValue, family_id);
  Bytes(key);
  Bytes(value);
}

void WriteBatchRep::Delete(uint32_t family_id, std::string_view key) {
  Reserve(key.size());
  Header(kTypeDeletion, kTypeColumnFamilyDeletion, family_id);
  Bytes(key);
}

BuiltWriteBatch WriteBatchRep::Finish() && {
  rep_.resize(used_);
  for (size_t i = 0; i < 4; ++i) {
    rep_[kCountOffset + i] = static_cast<char>((count_ >> (8 * i)) & 0xff);
  }
  return BuiltWriteBatch(std::move(rep_));
}

}  // namespace sluice::storage
