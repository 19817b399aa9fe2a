#pragma once

// Lists on the engine.
//
// Layout (storage/key_encoding.h has the prefixes). A list is in one of two encodings:
//   inline    metadata key -> [type=4][format][expire_at_ms:8][version:8][size:8] then, per
//             element in list order, [len:1][element]; a zero byte follows when that payload
//             would be 16 bytes long, so that only the indexed payload ever is
//   indexed   metadata key -> the same header, then [head:8 LE][tail:8 LE]: the elements have
//             sequence numbers in [head, tail), the first head and the last tail - 1
//             subkeys   [len:4 BE][key][version:8 BE][seq:8 BE] -> element
// A list starts inline and becomes indexed, for good, once it holds more than 128 elements,
// one longer than 64 bytes (InlineLimits, the sorted sets' limits), or more than about 4 KB of
// them (storage/inline_list.h). An inline list is one record read and write per operation, as
// Redis's listpack is one allocation: a short list used as a moving window (LINDEX, LPUSH,
// LTRIM, EXPIRE in one script) needs no RocksDB sub-entry, and its record stays in the record
// cache.
//
// An indexed list starts with head = tail = 2^63; LPUSH takes head - 1, RPUSH takes tail, so
// sequence order is list order. While the numbers have no gaps (tail - head == size, "dense"),
// index i is the sub-entry head + i: LINDEX is one point read, LRANGE one seek plus k steps.
// Pushes and pops are O(1) per element, LTRIM O(removed), LLEN the metadata's size.
// LREM deletes the matches and leaves gaps; LINSERT takes the middle of the gap between its
// neighbours. Where there is none, it moves the elements between it and the nearer end one
// number outward when they are at most an eighth of the list (an insert next to an end costs
// a few writes), else it lays the whole list out again kGap apart under a fresh version
// (list_type.cc), so the inserts that follow at that place find gaps. A list with gaps ("sparse")
// finds index i by walking from an end, as Redis walks its quicklist: LINDEX, LSET, LRANGE and pops
// of it are O(distance from that end). It stays sparse until it is emptied.
//
// Every operation reads the key's metadata once (expired keys are missing), returns
// WrongTypeStatus() for a key of another type, and stages its writes in the engine's batch.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/inline_limits.h"
#include "storage/record.h"

namespace sluice::storage {

enum class ListEnd { kHead, kTail };
enum class InsertWhere { kBefore, kAfter };

// What LPOS looks for: the matches found scanning from `from`, after skipping the first
// `skip` of them, up to `limit` of them (0: all), among the first `maxlen` elements scanned
// (0: all of them).
struct PositionQuery {
  ListEnd from = ListEnd::kHead;
  uint64_t skip = 0;
  uint64_t limit = 1;
  uint64_t maxlen = 0;
};

class ListType {
 public:
  ListType(Engine& engine, int64_t now_ms, InlineLimits limits = {})
      : engine_(engine), now_ms_(now_ms), limits_(limits) {}

  // Pushes each element in turn at `end` (LPUSH a b c leaves c b a), creating the key.
  // Returns the new length.
  StatusOr<uint64_t> Push(std::string_view key, ListEnd end,
                          std::span<const std::string_view> elements);
  // Pops up to `count` elements from `end`, in pop order; nullopt for a missing key. The key
  // goes with its last element.
  StatusOr<std::optional<std::vector<std::string>>> Pop(std::string_view key, ListEnd end,
                                                        uint64_t count);
  StatusOr<uint64_t> Len(std::string_view key);
  // Elements at [start, stop], Redis index rules (negative counts from the end).
  StatusOr<std::vector<std::string>> Range(std::string_view key, int64_t start, int64_t stop);
  // The same of `key`, whose record (of a list) the caller has looked up already.
  StatusOr<std::vector<std::string>> RangeOf(std::string_view key, const Record& record,
                                             int64_t start, int64_t stop);
  // Every element of `key`, in order, whose record (of a list) the caller has looked up
  // already.
  StatusOr<std::vector<std::string>> ElementsOf(std::string_view key, const Record& record);
  // LINDEX: the element at `index` (negative counts from the end) of `key`, whose record (of a
  // list) the caller has looked up already, as a view (Engine::GetView) valid when called;
  // nullopt when out of range.
  StatusOr<std::optional<std::string>> IndexOf(std::string_view key, const RecordView& record,
                                               int64_t index);
  // Keeps only [start, stop] (an empty range deletes the key). Returns whether the key existed.
  StatusOr<bool> Trim(std::string_view key, int64_t start, int64_t stop);
  // Replaces the element at `index` (negative counts from the end). False when the index is
  // out of range or the key is missing.
  StatusOr<bool> Set(std::string_view key, int64_t index, std::string_view element);
  // Removes the elements equal to `element`: every one for count 0, the first `count` from the
  // head for count > 0, the first -count from the tail for count < 0. Returns how many went;
  // the key goes with its last element.
  StatusOr<uint64_t> Remove(std::string_view key, int64_t count, std::string_view element);
  // Inserts `element` next to the first element (from the head) equal to `pivot`. Returns the
  // new length, 0 for a missing key, -1 when no element equals `pivot` (LINSERT's reply).
  StatusOr<int64_t> Insert(std::string_view key, InsertWhere where, std::string_view pivot,
                           std::string_view element);
  // The indexes (from the head) of the elements equal to `element` that `query` selects, in
  // the order found; none for a missing key.
  StatusOr<std::vector<uint64_t>> Positions(std::string_view key, std::string_view element,
                                            const PositionQuery& query);
  // Pops the element at `from` of `source` and pushes it at `to` of `destination`, creating
  // it; nullopt (and no change) for a missing source. The destination's type is checked only
  // when the source exists. The same key rotates in place, keeping its expiry.
  StatusOr<std::optional<std::string>> Move(std::string_view source, std::string_view destination,
                                            ListEnd from, ListEnd to);
  // SORT ... STORE: `key` becomes a list of `elements`, in order, whatever it held, without
  // TTL, under a fresh version; no elements deletes it (and writes nothing when it is missing).
  Status Replace(std::string_view key, std::span<const std::string> elements);

 private:
  Engine& engine_;
  int64_t now_ms_;
  InlineLimits limits_;
};

}  // namespace sluice::storage
