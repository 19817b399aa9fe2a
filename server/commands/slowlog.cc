// SLOWLOG GET [count], LEN, RESET, HELP: Redis 7.0's command over the dispatcher's slow log
// (server/slow_log.h).

#include <cstdint>
#include <string_view>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

constexpr int64_t kDefaultGetCount = 10;

void SlowLogGetSub(CommandContext& ctx, Args args) {
  if (args.size() > 3) {
    ReplyError(ctx, Err(resp::SubcommandSyntaxError(args[1], args[0])));
    return;
  }
  int64_t count = kDefaultGetCount;
  if (args.size() == 3 && (!ParseInt64(args[2], &count) || count < -1)) {
    ReplyError(ctx, Err("count should be greater than or equal to -1"));
    return;
  }
  const auto& entries = ctx.server.slow_log.entries();
  const size_t shown = count == -1 || static_cast<uint64_t>(count) > entries.size()
                           ? entries.size()
                           : static_cast<size_t>(count);
  ctx.reply.Array(static_cast<int64_t>(shown));
  for (size_t i = 0; i < shown; ++i) {
    const SlowLogEntry& entry = entries[i];
    ctx.reply.Array(6);
    ctx.reply.Int(entry.id);
    ctx.reply.Int(entry.unix_seconds);
    ctx.reply.Int(entry.duration_us);
    ReplyBulks(ctx, entry.args);
    ctx.reply.Bulk(entry.peer);
    ctx.reply.Bulk(entry.client_name);
  }
}

void SlowLogLenSub(CommandContext& ctx, Args) {
  ctx.reply.Int(static_cast<int64_t>(ctx.server.slow_log.size()));
}

void SlowLogResetSub(CommandContext& ctx, Args) {
  ctx.server.slow_log.Reset();
  ctx.reply.Ok();
}

void SlowLogHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "GET [<count>]",
      "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
      "    Entries are made of:",
      "    id, timestamp, time in microseconds, arguments array, client IP and port,",
      "    client name",
      "LEN",
      "    Return the length of the slowlog.",
      "RESET",
      "    Reset the slowlog."};
  ReplyHelp(ctx, "SLOWLOG", kLines);
}

// Redis's tips: each node keeps its own slow log (in this order, Redis's).
constexpr Subcommand kSlowLogSubcommands[] = {
    WithTips({"get", -2, SlowLogGetSub},
             {CommandTip::kRequestAllNodes, CommandTip::kNondeterministicOutput}),
    WithTips({"len", 2, SlowLogLenSub}, {CommandTip::kRequestAllNodes, CommandTip::kResponseAggSum,
                                         CommandTip::kNondeterministicOutput}),
    WithTips({"reset", 2, SlowLogResetSub}, kOnAllNodes),
    {"help", 2, SlowLogHelpSub},
};

void SlowLogCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kSlowLogSubcommands);
}

}  // namespace

void RegisterSlowLogCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register({"slowlog", -2, F::kAdmin | F::kLoading | F::kStale, 0, 0, 0, SlowLogCommand,
                  "server", kSlowLogSubcommands});
}

}  // namespace sluice::server
