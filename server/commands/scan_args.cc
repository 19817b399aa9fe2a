#include "server/commands/scan_args.h"

#include <charconv>
#include <utility>

#include "common/glob_match.h"
#include "server/arg_cursor.h"
#include "server/commands/helpers.h"

namespace sluice::server {

StatusOr<uint64_t> ParseScanCursor(std::string_view text) {
  text = text.substr(0, text.find('\0'));
  if (text.empty()) return uint64_t{0};
  const bool negative = text[0] == '-';
  if (negative || text[0] == '+') text.remove_prefix(1);
  uint64_t cursor = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), cursor);
  if (error != std::errc() || end != text.data() + text.size()) return Err("invalid cursor");
  return negative ? 0 - cursor : cursor;
}

StatusOr<ScanOptions> ParseScanOptions(Args options, bool allow_type) {
  ScanOptions parsed;
  ArgCursor cursor(options);
  while (!cursor.Done()) {
    if (cursor.Remaining() < 2) return SyntaxError();
    if (cursor.NextIf("COUNT")) {
      parsed.count = cursor.Next<int64_t>();
      if (cursor.ok() && parsed.count < 1) return SyntaxError();
    } else if (cursor.NextIf("MATCH")) {
      parsed.match = cursor.Next();
    } else if (allow_type && cursor.NextIf("TYPE")) {
      parsed.type = cursor.Next();
    } else {
      return SyntaxError();
    }
  }
  if (!cursor.ok()) return cursor.status();
  return parsed;
}

std::string ScanResumePoint(CommandContext& ctx, uint64_t cursor) {
  if (cursor == 0) return {};
  return ctx.server.scan_cursors.Find(cursor).value_or("");
}

uint64_t ScanCursorFor(CommandContext& ctx, std::optional<std::string> position) {
  if (!position) return 0;
  return ctx.server.scan_cursors.Save(std::move(*position));
}

bool ElementScan::Matches(std::string_view element) const {
  return match == "*" || GlobMatch(match, element);
}

std::optional<ElementScan> StartElementScan(CommandContext& ctx, Args args, storage::KeyType type) {
  auto cursor = ParseScanCursor(args[2]);
  if (ReplyIfError(ctx, cursor.status())) return std::nullopt;
  std::optional<storage::Record> record;
  if (!LookupTyped(ctx, args[1], type, &record)) return std::nullopt;
  if (!record) {
    StartScanReply(ctx, 0, 0);
    return std::nullopt;
  }
  auto options = ParseScanOptions(args.subspan(3), /*allow_type=*/false);
  if (ReplyIfError(ctx, options.status())) return std::nullopt;
  return ElementScan{ScanResumePoint(ctx, *cursor), static_cast<size_t>(options->count),
                     options->match, std::move(*record)};
}

void StartScanReply(CommandContext& ctx, uint64_t next_cursor, size_t items) {
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::to_string(next_cursor));
  ctx.reply.Array(items);
}

}  // namespace sluice::server
