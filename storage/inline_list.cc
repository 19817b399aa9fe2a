#include "storage/inline_list.h"

#include <algorithm>

namespace sluice::storage {

namespace {

size_t ElementLength(std::string_view bytes, size_t at) { return static_cast<uint8_t>(bytes[at]); }

}  // namespace

StatusOr<std::string_view> InlineListBytes(std::string_view payload, uint64_t count, uint64_t index,
                                           size_t* offset) {
  size_t at = 0;
  uint64_t seen = 0;
  size_t ignored = 0;
  size_t* const index_offset = offset != nullptr ? offset : &ignored;
  for (; seen < count && at < payload.size(); ++seen) {
    if (seen == index) *index_offset = at;
    at += 1 + ElementLength(payload, at);
  }
  if (seen == index) *index_offset = at;
  const bool padded =
      at == kIndexedListPayloadBytes && payload.size() == at + 1 && payload[at] == '\0';
  if (seen != count || (at != payload.size() && !padded)) {
    return IoError("corrupt list: inline payload disagrees with the size");
  }
  return payload.substr(0, at);
}

size_t InlineListOffset(std::string_view bytes, uint64_t index, size_t from) {
  size_t at = from;
  for (uint64_t i = 0; i < index && at < bytes.size(); ++i) at += 1 + ElementLength(bytes, at);
  return at;
}

std::string_view InlineListElementAt(std::string_view bytes, size_t at) {
  return bytes.substr(at + 1, ElementLength(bytes, at));
}

std::vector<std::string> CopyInlineListElements(std::string_view bytes, size_t at, uint64_t count) {
  std::vector<std::string> out;
  out.reserve(count);
  for (; out.size() < count && at < bytes.size(); at += 1 + ElementLength(bytes, at)) {
    out.emplace_back(InlineListElementAt(bytes, at));
  }
  return out;
}

std::vector<std::string_view> InlineListElements(std::string_view bytes, uint64_t count) {
  std::vector<std::string_view> out;
  out.reserve(count);
  for (size_t at = 0; out.size() < count && at < bytes.size(); at += 1 + ElementLength(bytes, at)) {
    out.push_back(bytes.substr(at + 1, ElementLength(bytes, at)));
  }
  return out;
}

void AppendInlineListElement(std::string* bytes, std::string_view element) {
  bytes->push_back(static_cast<char>(element.size()));
  bytes->append(element);
}

std::string InlineListPayload(std::string bytes) {
  if (bytes.size() == kIndexedListPayloadBytes) bytes.push_back('\0');
  return bytes;
}

std::string EncodeInlineList(std::span<const std::string_view> elements) {
  size_t length = 1;  // room for a pad
  for (std::string_view element : elements) length += 1 + element.size();
  std::string bytes;
  bytes.reserve(length);
  for (std::string_view element : elements) AppendInlineListElement(&bytes, element);
  return bytes;
}

bool FitsInlineList(const InlineLimits& limits, uint64_t count, size_t kept_bytes,
                    std::span<const std::string_view> added) {
  const size_t longest = std::min<size_t>(limits.max_member, UINT8_MAX);
  size_t bytes = kept_bytes + 1;  // and a pad
  for (std::string_view element : added) {
    if (element.size() > longest) return false;
    bytes += 1 + element.size();
  }
  return count <= limits.max_entries && bytes <= kMostInlineListBytes;
}

}  // namespace sluice::storage
