#pragma once

// The inline encoding of a short list (storage/list_type.h has both layouts): its elements in
// list order in the key's record's payload, each as [len:1][element], and a zero byte after
// them when they take exactly 16 bytes, the length of an indexed list's payload (its bounds),
// which only that payload ever has. Byte work on a payload only: list_type.cc does the rest.
// A list is inline while it has at most 128 elements (InlineLimits), none longer than 64
// bytes, and they take at most kMostInlineListBytes.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "storage/inline_limits.h"
#include "storage/key_encoding.h"
#include "storage/record_cache.h"

namespace sluice::storage {

inline constexpr size_t kIndexedListPayloadBytes = 16;

// Whether a list's record payload is inline: only an indexed one's is 16 bytes long.
inline bool IsInlineListPayload(std::string_view payload) {
  return payload.size() != kIndexedListPayloadBytes;
}

// The elements' bytes of an inline `payload` (without its pad), checked to hold exactly
// `count` elements. With `offset`, the same walk also puts there the offset of the element
// `index` (at most `count`: then their end), which saves a reader a second walk.
StatusOr<std::string_view> InlineListBytes(std::string_view payload, uint64_t count,
                                           uint64_t index = 0, size_t* offset = nullptr);

// The offset of the element `index` elements past the one at byte `from` of checked bytes
// (at most to their end).
size_t InlineListOffset(std::string_view bytes, uint64_t index, size_t from = 0);

// The element at byte `at` of checked bytes (before their end).
std::string_view InlineListElementAt(std::string_view bytes, size_t at);

// The `count` elements from byte `at` of checked bytes on, in order: copied, or viewed.
std::vector<std::string> CopyInlineListElements(std::string_view bytes, size_t at, uint64_t count);
std::vector<std::string_view> InlineListElements(std::string_view bytes, uint64_t count);

// Appends `element` (at most 255 bytes) to a list's bytes.
void AppendInlineListElement(std::string* bytes, std::string_view element);

// The bytes of a list of `elements`.
std::string EncodeInlineList(std::span<const std::string_view> elements);
// The payload holding a list's `bytes`: they, padded when 16 long.
std::string InlineListPayload(std::string bytes);

// The most bytes an inline list's payload takes (its elements with their lengths, and room for
// a pad), so that its record stays small enough for the record cache (storage/record_cache.h).
// A larger one was read from RocksDB, whole, by every command: a queue of 120 elements of 60
// bytes, pushed and popped, ran 5% to 10% slower inline than indexed.
inline constexpr size_t kMostInlineListBytes = RecordCache::kMaxValueBytes - kCompositeHeaderBytes;

// Whether a list of `count` elements fits inline: `added` among them, and others (which fit)
// taking `kept_bytes` bytes.
bool FitsInlineList(const InlineLimits& limits, uint64_t count, size_t kept_bytes,
                    std::span<const std::string_view> added);

}  // namespace sluice::storage
