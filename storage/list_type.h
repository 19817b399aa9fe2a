#pragma once

// Lists on the engine.
//
// Layout (storage/key_encoding.h has the prefixes):
//   metadata  key -> [type=4][format][expire_at_ms:8][version:8][size:8][head:8 LE][tail:8 LE]
//                    42 bytes: the elements have the sequence numbers [head, tail)
//   subkeys   [len:4 BE][key][version:8 BE][seq:8 BE] -> element
// A new list starts with head = tail = 2^63; LPUSH takes head - 1, RPUSH takes tail, so
// sequence order is list order and index i is the sub-entry head + i: LLEN is the metadata's
// size, LINDEX one point read, LRANGE one seek plus k steps, pushes and pops O(1) per element,
// LTRIM O(removed).
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

namespace sluice::storage {

enum class ListEnd { kHead, kTail };

class ListType {
 public:
  ListType(Engine& engine, int64_t now_ms) : engine_(engine), now_ms_(now_ms) {}

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
  // The element at `index` (negative counts from the end); nullopt when out of range or missing.
  StatusOr<std::optional<std::string>> Index(std::string_view key, int64_t index);
  // Keeps only [start, stop] (an empty range deletes the key). Returns whether the key existed.
  StatusOr<bool> Trim(std::string_view key, int64_t start, int64_t stop);

 private:
  Engine& engine_;
  int64_t now_ms_;
};

}  // namespace sluice::storage
