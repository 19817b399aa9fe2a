#pragma once

// The writes staged between two commits: for each (family, key) only its latest value or
// deletion, found in O(1) so reads see staged writes, and emitted at commit as one
// rocksdb::WriteBatch in (family, key) order.
//
// Keeping only the latest write per key is exact: a batch is applied atomically, so nobody can
// observe the overwritten intermediate states. It also means a key written by 800 pipelined
// commands is inserted into the memtable once per commit, not 800 times. Key order makes the
// memtable inserts of one commit walk the skiplist forwards instead of searching from the top,
// which pays for sorting only when the keys lie close together (a big hash or sorted set). The
// key space's memtable updates in place through a hash index, so its family can be emitted in
// staging order: sorting its batch of random limiter keys cost 5% of the loop for nothing.
//
// Buffers are reused between commits (a steady workload allocates nothing here); a batch far
// larger than usual gives its memory back when it is cleared.

#include <rocksdb/write_batch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/write_batch_rep.h"

namespace sluice::storage {

class WriteStage {
 public:
  struct Entry {
    uint8_t family = 0;  // index of the column family (the engine's handle order)
    bool deleted = false;
    uint64_t hash = 0;
    uint64_t written_at = 0;  // writes_staged() just after the entry's latest write
    std::string key;
    std::string value;  // empty when deleted
  };

  // `staging_order_family`: the family whose writes AppendTo emits unsorted.
  explicit WriteStage(std::optional<uint8_t> staging_order_family = std::nullopt);

  // Stages `value` under (family, key), replacing whatever was staged there.
  void Put(uint8_t family, std::string_view key, std::string_view value);
  // Returns the value buffer of (family, key), cleared, for the caller to encode into (saves
  // a temporary string). The entry counts as a put.
  std::string* PutInPlace(uint8_t family, std::string_view key);
  void Delete(uint8_t family, std::string_view key);

  // The staged write of (family, key); nullptr when nothing is staged there. Valid until the
  // next change to the stage.
  const Entry* Find(uint8_t family, std::string_view key) const;

  bool empty() const { return used_ == 0; }
  size_t size() const { return used_; }
  // Puts and deletes staged since construction, never reset: a command that leaves it as it
  // was changed nothing (WATCH is not broken by a write that was a no-op).
  uint64_t writes_staged() const { return writes_staged_; }
  // Whether (family, key) was written since writes_staged() was `writes`. True as well when a
  // commit since then cleared what was staged after it: it can no longer be told, and a key
  // reported changed in vain costs less than a change missed.
  bool WrittenSince(uint8_t family, std::string_view key, uint64_t writes) const;

  // The staged entries in staging order (first write of each key).
  const Entry& at(size_t i) const { return entries_[i]; }
  // The index (for at()) of the entry the latest Put, PutInPlace or Delete wrote.
  size_t last_staged() const { return last_staged_; }

  // Appends every staged write to `batch`: the staging-order family's first, as staged, then
  // the others in (family, key) order; `families[i]` is the column family handle of family
  // index i.
  void AppendTo(rocksdb::WriteBatch* batch,
                const std::vector<rocksdb::ColumnFamilyHandle*>& families) const;
  // The same writes in the same order as a batch of their own, built in its serialized form
  // (write_batch_rep.h) in `buffer`'s memory: what a commit writes.
  BuiltWriteBatch ToBatch(const std::vector<rocksdb::ColumnFamilyHandle*>& families,
                          std::string buffer = {}) const;

  void Clear();
  // Drops the staged writes to the families `dropped` says (by index; past its end: kept), as
  // a wipe of those families supersedes them. Counts as a write even when none was staged.
  void DropFamilies(const std::vector<bool>& dropped);

 private:
  Entry* Stage(uint8_t family, std::string_view key);
  // The entries' indexes in the order AppendTo and ToBatch emit them.
  const std::vector<uint32_t>& EmitOrder() const;
  size_t FindSlot(uint8_t family, std::string_view key, uint64_t hash) const;
  void Grow();

  std::optional<uint8_t> staging_order_family_;
  std::vector<Entry> entries_;  // [0, used_) are live; the rest keep their buffers for reuse
  size_t used_ = 0;
  size_t last_staged_ = 0;
  uint64_t writes_staged_ = 0;
  uint64_t cleared_at_ = 0;              // writes_staged_ when Clear last dropped staged writes
  std::vector<uint32_t> slots_;          // open addressing: entry index + 1, 0 = empty
  mutable std::vector<uint32_t> order_;  // scratch for EmitOrder
};

}  // namespace sluice::storage
