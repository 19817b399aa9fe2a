#pragma once

// What SCAN, HSCAN and ZSCAN share: the cursor's text, the options after it, the reply's shape,
// and the cursors the server hands out (each names where a scan stopped).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "server/command_context.h"
#include "storage/record.h"

namespace sluice::server {

struct ScanOptions {
  std::string_view match = "*";
  std::optional<std::string_view> type;  // SCAN only
  int64_t count = 10;
};

// Redis reads a cursor with strtoul: the text ends at its first NUL byte, "" is 0, leading
// zeros and a sign are allowed ("-1" wraps around to the largest cursor); a leading space, any
// other byte and a value past 64 bits are refused ("invalid cursor").
StatusOr<uint64_t> ParseScanCursor(std::string_view text);
// MATCH pattern, COUNT count (at least 1) and, with `allow_type`, TYPE type; in any order.
StatusOr<ScanOptions> ParseScanOptions(Args options, bool allow_type);

// Where cursor `cursor` resumes: "" for 0 or a cursor the server no longer knows (a fresh
// scan, which Redis's stateless cursors would not give, but which visits every element).
std::string ScanResumePoint(CommandContext& ctx, uint64_t cursor);
// The cursor for a scan to resume after `position`; 0 when the scan is over (nullopt).
uint64_t ScanCursorFor(CommandContext& ctx, std::optional<std::string> position);
// HSCAN, SSCAN and ZSCAN, once their arguments are read: where to resume, how many elements to
// examine, which to keep, and the key's record, which the page is read under (no second
// lookup).
struct ElementScan {
  std::string after;
  size_t count = 10;
  std::string_view match;
  storage::Record record;
  bool Matches(std::string_view element) const;
};
// Reads HSCAN's, SSCAN's or ZSCAN's arguments in Redis's order: the cursor, then the key
// (WRONGTYPE; a missing one is an empty, finished scan whatever the options), then the
// options. nullopt when it has replied itself.
std::optional<ElementScan> StartElementScan(CommandContext& ctx, Args args, storage::KeyType type);

// Starts [cursor, [items...]]: the caller adds `items` bulk strings.
void StartScanReply(CommandContext& ctx, uint64_t next_cursor, size_t items);

}  // namespace sluice::server
