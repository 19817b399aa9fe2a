#include "server/commands/helpers.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/ascii.h"
#include "resp/error_messages.h"
#include "server/arg_cursor.h"

namespace sluice::server {

Status WrongTypeError() { return {Code::kWrongType, std::string(resp::kWrongTypeMsg)}; }

bool LookupAny(CommandContext& ctx, std::string_view key, std::optional<storage::Record>* record) {
  auto found = ctx.engine().Get(key, ctx.now_ms);
  if (ReplyIfError(ctx, found.status())) return false;
  *record = std::move(found).value();
  return true;
}

namespace {

// LookupTyped's type check, for a record or a view: replies WRONGTYPE when it fails.
template <typename Found>
bool IsMissingOrOfType(CommandContext& ctx, const std::optional<Found>& record,
                       storage::KeyType type) {
  if (record.has_value() && record->meta.type != type) {
    ReplyError(ctx, WrongTypeError());
    return false;
  }
  return true;
}

// The end of the view lookups: a storage error or WRONGTYPE is replied here.
bool TakeTypedView(CommandContext& ctx, StatusOr<std::optional<storage::RecordView>> found,
                   storage::KeyType type, std::optional<storage::RecordView>* record) {
  if (ReplyIfError(ctx, found.status())) return false;
  *record = *found;
  return IsMissingOrOfType(ctx, *record, type);
}

}  // namespace

bool LookupAnyWithoutLongPayload(CommandContext& ctx, std::string_view key,
                                 std::optional<storage::Record>* record) {
  auto found = ctx.engine().GetViewWithoutLongPayload(key, ctx.now_ms);
  if (ReplyIfError(ctx, found.status())) return false;
  record->reset();
  // A copy: the view may be of the stage, which the write that follows rewrites.
  if (found->has_value()) *record = storage::Record{(*found)->meta, std::string((*found)->payload)};
  return true;
}

bool LookupTyped(CommandContext& ctx, std::string_view key, storage::KeyType type,
                 std::optional<storage::Record>* record) {
  return LookupAny(ctx, key, record) && IsMissingOrOfType(ctx, *record, type);
}

bool LookupTypedView(CommandContext& ctx, std::string_view key, storage::KeyType type,
                     std::optional<storage::RecordView>* record) {
  return TakeTypedView(ctx, ctx.engine().GetView(key, ctx.now_ms), type, record);
}

bool LookupTypedWithoutLongPayload(CommandContext& ctx, std::string_view key, storage::KeyType type,
                                   std::optional<storage::RecordView>* record) {
  return TakeTypedView(ctx, ctx.engine().GetViewWithoutLongPayload(key, ctx.now_ms), type, record);
}

bool IsCKeyword(std::string_view arg, std::string_view keyword) {
  return EqualsIgnoreCase(resp::CString(arg), keyword);
}

void PutString(CommandContext& ctx, std::string_view key, std::string_view value,
               int64_t expire_at_ms) {
  storage::Metadata meta;
  meta.type = storage::KeyType::kString;
  meta.expire_at_ms = expire_at_ms;
  ctx.engine().Put(key, meta, value);
}

bool IsPrintableWithoutSpaces(std::string_view s) {
  for (char c : s) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

void ReplyHelp(CommandContext& ctx, std::string_view container,
               std::span<const std::string_view> lines) {
  ctx.reply.Array(static_cast<int64_t>(lines.size()) + 3);
  ctx.reply.Simple(std::string(container) +
                   " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
  for (std::string_view line : lines) ctx.reply.Simple(line);
  ctx.reply.Simple("HELP");
  ctx.reply.Simple("    Prints this help.");
}

void DispatchSubcommand(CommandContext& ctx, Args args, std::span<const Subcommand> subcommands) {
  auto sub = FindSubcommand(args, subcommands);
  if (ReplyIfError(ctx, sub.status())) return;
  (*sub)->handler(ctx, args);
}

bool ParseLongDouble(std::string_view s, long double* out) {
  if (s.empty() || s.size() >= 5 * 1024 || std::isspace(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  std::string buf(s);
  char* end = nullptr;
  errno = 0;
  long double value = std::strtold(buf.c_str(), &end);
  // The whole argument, NUL bytes included, must be the number (Redis's string2ld).
  if (end != buf.c_str() + buf.size() || std::isnan(value)) return false;
  if (errno == ERANGE && (value == HUGE_VALL || value == -HUGE_VALL || value == 0)) return false;
  *out = value;
  return true;
}

std::string FormatLongDouble(long double value) {
  char buf[5 * 1024 + 64];
  int len = std::snprintf(buf, sizeof(buf), "%.17Lf", value);
  std::string_view text(buf, static_cast<size_t>(len));
  if (text.find('.') != std::string_view::npos) {
    while (text.back() == '0') text.remove_suffix(1);
    if (text.back() == '.') text.remove_suffix(1);
  }
  if (text == "-0") return "0";
  return std::string(text);
}

StatusOr<int64_t> ParseTimeoutMs(std::string_view arg) {
  int64_t ms = 0;
  if (!ParseInt64(arg, &ms)) return Err("timeout is not an integer or out of range");
  if (ms < 0) return Err("timeout is negative");
  return ms;
}

StatusOr<int> ParseDbIndex(std::string_view arg, int databases) {
  int64_t index = 0;
  if (!ParseInt64(arg, &index)) return Err(std::string(resp::kNotInteger));
  if (index < INT32_MIN || index > INT32_MAX) {
    // getIntFromObjectOrReply's wording, kept.
    return Err("value is out of range, value must between -2147483648 and 2147483647");
  }
  if (index < 0 || index >= databases) return Err(std::string(resp::kDbIndexOutOfRange));
  return static_cast<int>(index);
}

}  // namespace sluice::server
