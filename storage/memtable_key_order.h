#pragma once

// The order of a memtable whose column family sorts user keys bytewise (RocksDB's default
// comparator), computed in one inlined function.
//
// A memtable entry starts with its internal key, length-prefixed (varint32): the user key,
// then 8 bytes of little-endian (sequence << 8 | type). A memtable orders entries as RocksDB's
// MemTable::KeyComparator does (InternalKeyComparator::CompareKeySeq): user keys ascending,
// then sequence numbers descending, the type byte ignored. RocksDB's own comparator gets there
// through two virtual calls and a perf-context count per comparison; memtable_skiplist.h
// inlines this one in its searches.

#include <rocksdb/memtablerep.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sluice::storage {

// The internal key at the start of a memtable entry.
inline rocksdb::Slice EntryInternalKey(const char* entry) {
  const auto* p = reinterpret_cast<const unsigned char*>(entry);
  if (p[0] < 0x80) return {entry + 1, p[0]};  // keys under 128 bytes: one length byte
  uint32_t length = 0;
  int shift = 0;
  for (; p[0] >= 0x80; ++p, shift += 7) length |= uint32_t{p[0] & 0x7fu} << shift;
  length |= uint32_t{p[0]} << shift;
  return {reinterpret_cast<const char*>(p + 1), length};
}

// The user key of an internal key (all of it but the 8-byte tag).
inline std::string_view InternalKeyUserKey(const rocksdb::Slice& internal_key) {
  return {internal_key.data(), internal_key.size() - 8};
}

// (sequence << 8 | type) of an internal key.
inline uint64_t InternalKeyTag(const rocksdb::Slice& internal_key) {
  const auto* p =
      reinterpret_cast<const unsigned char*>(internal_key.data()) + internal_key.size() - 8;
  uint64_t tag = 0;
  for (int i = 7; i >= 0; --i) tag = (tag << 8) | p[i];  // one load on little-endian CPUs
  return tag;
}

// A tag (the largest sequence number) that sorts before every entry of its user key.
inline constexpr uint64_t kTagBeforeAllVersions = ~uint64_t{0};

// Appends the internal key `user_key` + kTagBeforeAllVersions: a search for it ends before
// every version of the key.
inline void AppendKeyBeforeAllVersions(std::string_view user_key, std::string* out) {
  char tag[sizeof(kTagBeforeAllVersions)];
  std::memcpy(tag, &kTagBeforeAllVersions, sizeof(tag));
  out->append(user_key).append(tag, sizeof(tag));
}

// <0, 0, >0 as `a` sorts before, with or after `b` (two internal keys).
inline int CompareInternalKeysBytewise(const rocksdb::Slice& a, const rocksdb::Slice& b) {
  const std::string_view a_user = InternalKeyUserKey(a);
  const std::string_view b_user = InternalKeyUserKey(b);
  const int r = std::memcmp(a_user.data(), b_user.data(), std::min(a_user.size(), b_user.size()));
  if (r != 0) return r;
  if (a_user.size() != b_user.size()) return a_user.size() < b_user.size() ? -1 : 1;
  const uint64_t a_sequence = InternalKeyTag(a) >> 8;
  const uint64_t b_sequence = InternalKeyTag(b) >> 8;
  if (a_sequence == b_sequence) return 0;
  return a_sequence > b_sequence ? -1 : 1;  // newer first
}

class BytewiseEntryComparator : public rocksdb::MemTableRep::KeyComparator {
 public:
  int operator()(const char* a, const char* b) const override {
    return CompareInternalKeysBytewise(EntryInternalKey(a), EntryInternalKey(b));
  }
  int operator()(const char* a, const rocksdb::Slice& b) const override {
    return CompareInternalKeysBytewise(EntryInternalKey(a), b);
  }
  rocksdb::Slice decode_key(const char* key) const override { return EntryInternalKey(key); }
};

}  // namespace sluice::storage
