#pragma once

// One sorted set's elements, in either of its two encodings (storage/zset_type.h has the
// layouts), behind one interface for the operations in zset_type.cc (ZSetReader reads a
// record it is lent; ZSetKey, which extends it, writes too):
//   inline   the members and scores live in the record's payload, as Redis keeps a small set
//            in a listpack: one record read (mostly from the record cache) and one write per
//            operation, no RocksDB iterator.
//   indexed  one sub-entry per member (member -> score) plus one score-ordered index entry.
// A set starts inline and becomes indexed, for good, once it holds more than 128 members or a
// member longer than 64 bytes (InlineLimits: Redis's zset-max-listpack-entries and
// zset-max-listpack-value defaults).
//
// Both encodings are walked through SubEntryIterator over index keys: prefix() followed by
// the 8 ordered score bytes and the member. prefix() is empty for an inline set.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/inline_limits.h"
#include "storage/record.h"

namespace sluice::storage {

Status CorruptZSet(std::string_view what);
// An indexed set's member sub-entry value (subkeys family): the member's score.
StatusOr<double> DecodeScoreValue(std::string_view value);

// A sorted set's elements, read only: the reads of ZSetKey below, over a record the caller
// looked up (and may share, as DUMP's and SORT's), which it never writes.
class ZSetReader {
 public:
  // `record` is the key's, loaded by the caller; it must outlive this object. Call Load()
  // before anything else.
  ZSetReader(Engine& engine, std::string_view key, const Record& record)
      : engine_(engine), key_(key), record_(record) {}
  ZSetReader(const ZSetReader&) = delete;
  ZSetReader& operator=(const ZSetReader&) = delete;

  // Decodes the record's header: its encoding, and an indexed set's bounds. (An inline set's
  // entries are checked as they are read: a malformed one fails the read that reaches it.)
  Status Load();

  const std::string& prefix() const { return prefix_; }
  // Whether the elements are sub-entries (else inline in the record's payload).
  bool indexed() const { return !inline_; }

  StatusOr<std::optional<double>> Score(std::string_view member);
  // The index key of (score, member): prefix() + ordered score bits + member.
  std::string IndexKey(double score, std::string_view member) const;
  // Where the index keys with ordered score bits `bits` begin: prefix() + bits.
  std::string IndexBound(uint64_t bits) const;

  // Iterates the index, from the first entry to the last. No element write may happen while
  // it is open.
  std::unique_ptr<SubEntryIterator> Index();

 protected:
  const std::vector<std::string_view>& InlineEntries();

  Engine& engine_;
  std::string_view key_;
  const Record& record_;
  bool inline_ = true;
  std::string prefix_;  // of the index keys: empty when inline

  // Inline: the index keys without prefix, in order, as stored ([len:1][key] each, each length
  // checked when first read); decoded into entries_, which view them or ZSetKey's inserted
  // keys, on the first write or backward walk.
  std::string_view packed_;
  bool decoded_ = false;
  std::vector<std::string_view> entries_;
  // A stored entry did not fit the payload, or the entries not its size: every walk and
  // Store() report it from then on (InlineStatus()).
  bool corrupt_ = false;
  bool PackedEntryFits(size_t offset) const;
  Status InlineStatus() const;

  // Indexed: the ordered score bits of the first and last index entries. Every entry lies in
  // [floor_, ceil_], exactly at the bounds unless stale (an entry at a bound went: Store() finds
  // the bound again). A set of unknown bounds (written before they were kept) has the widest.
  uint64_t floor_ = UINT64_MAX;
  uint64_t ceil_ = 0;
  bool floor_stale_ = false;
  bool ceil_stale_ = false;

 private:
  class InlineIterator;
};

// A sorted set's elements, read and written.
class ZSetKey final : public ZSetReader {
 public:
  // A new, empty set (inline) under a fresh version.
  static Record NewRecord(Engine& engine);

  // `record` is the key's, loaded by the caller; it must outlive this object. Call Load()
  // before anything else.
  ZSetKey(Engine& engine, std::string_view key, Record& record, InlineLimits limits)
      : ZSetReader(engine, key, record), writable_record_(record), limits_(limits) {}

  Record& record() { return writable_record_; }

  // Element writes; the record itself is written by Store(). -0.0 is stored as 0.0, as Redis's
  // listpack encoding does (replies then print "0").
  void Insert(std::string_view member, double score);
  void Erase(std::string_view member, double score);
  void Rescore(std::string_view member, double old_score, double new_score);

  // Whether an element write since Load() changed what the record holds.
  bool record_changed() const { return record_changed_; }
  // Counts the index entries deleted since the last call toward the key's tombstones
  // (composite.h, ShedTombstones); whether the key is due to be copied under a fresh version,
  // which Store() then does. A rescore that moves no bound stores nothing else.
  bool TombstonesDue();

  // Before erasing a run of entries consecutive in the index (a range by score or by rank, a
  // pop), given its first and last index keys and with no element write since Load(): notes
  // the entries on either side of it, so that Store() knows the bounds left without walking
  // over the erased entries. That walk reads them all through the batch's merged index, which
  // then has to hold every deletion: 70% of a 100,000-member ZREMRANGEBYSCORE.
  Status NoteRunToErase(std::string_view first, std::string_view last);
  // The same for a run at one end of the index (a pop), given the score bits of the entry
  // next to it, which the caller read with the run (nullopt: none; Store() then finds the
  // bounds itself if it must).
  void NoteEndRunToErase(bool at_head, std::optional<uint64_t> neighbour);

  // Stages the record (its size, and the inline elements or the index's score bounds), or the
  // key's deletion once its last member is gone. Call it last, with no iterator open.
  Status Store();

 private:
  void ConvertToIndexed();
  void PutIndexEntry(std::string_view member, double score);
  void DeleteIndexEntry(std::string_view member, double score);
  Status SettleBounds();
  StatusOr<uint64_t> ScoreBitsOf(std::string_view index_key) const;

  // Around a run about to be erased (NoteRunToErase): the score bits of the entry just after
  // it (the new floor when none precedes the run), and of an entry before it, the one just
  // before when none follows the run (the new ceiling); nullopt: none there.
  struct RunNeighbours {
    std::optional<uint64_t> before;
    std::optional<uint64_t> after;
  };

  Record& writable_record_;  // the one ZSetReader reads
  InlineLimits limits_;
  std::deque<std::string> owned_;  // index keys inserted since Load() (a deque: never moved)
  bool record_changed_ = false;
  uint64_t index_deletions_ = 0;  // not yet counted: tombstones left in the index
  bool shed_due_ = false;
  std::optional<RunNeighbours> run_neighbours_;
};

}  // namespace sluice::storage
