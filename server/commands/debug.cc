// DEBUG (behind enable-debug-command): the test clock, and storage hooks for tests.
//   DEBUG CLOCK                    current server time in ms
//   DEBUG CLOCK FREEZE [unix_ms]   stop the clock (now, or at unix_ms)
//   DEBUG CLOCK ADVANCE ms         move a frozen clock forward
//   DEBUG CLOCK RESUME             back to real time
//   DEBUG COMPACT                  full RocksDB compaction (the compaction filter drops
//                                  expired keys)
//   DEBUG RAWKEYS                  raw entries on disk in the metadata column family,
//                                  expired included
//   DEBUG RAWSUBKEYS               raw element entries on disk (subkeys + zscore families),
//                                  orphaned ones included until compaction drops them
//   DEBUG SLEEP seconds            block the loop (as Redis; tests use 0)

#include <chrono>
#include <thread>

#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

void ClockSub(CommandContext& ctx, Args args) {
  FreezableClock& clock = *ctx.server.clock;
  if (args.size() == 2) {
    ctx.reply.Int(clock.NowMillis());
    return;
  }
  std::string_view action = args[2];
  if (EqualsIgnoreCase(action, "FREEZE") && args.size() <= 4) {
    if (args.size() == 4) {
      int64_t at_ms = 0;
      if (!ParseInt64(args[3], &at_ms) || at_ms < 0) {
        ReplyError(ctx, Err("unix_ms must be a non-negative integer"));
        return;
      }
      if (at_ms > INT64_MAX / 1000) {  // the clock counts microseconds
        ReplyError(ctx, Err("unix_ms would overflow the clock"));
        return;
      }
      clock.Freeze(at_ms * 1000);
    } else {
      clock.FreezeNow();
    }
    ctx.server.actions->OnClockChanged();
    ctx.reply.Ok();
  } else if (EqualsIgnoreCase(action, "ADVANCE") && args.size() == 4) {
    int64_t delta_ms = 0;
    if (!ParseInt64(args[3], &delta_ms) || delta_ms < 0) {
      ReplyError(ctx, Err("ms must be a non-negative integer"));
      return;
    }
    if (!clock.frozen()) {
      ReplyError(ctx, Err("the clock is not frozen: use DEBUG CLOCK FREEZE first"));
      return;
    }
    int64_t now_us = clock.NowMicros();
    if (delta_ms > INT64_MAX / 1000 || now_us > INT64_MAX - delta_ms * 1000) {
      ReplyError(ctx, Err("ms would overflow the clock"));
      return;
    }
    clock.Advance(delta_ms * 1000);
    ctx.server.actions->OnClockChanged();
    ctx.reply.Ok();
  } else if (EqualsIgnoreCase(action, "RESUME") && args.size() == 3) {
    clock.Resume();
    ctx.server.actions->OnClockChanged();
    ctx.reply.Ok();
  } else {
    ReplyError(ctx, SyntaxError());
  }
}

void CompactSub(CommandContext& ctx, Args) {
  if (ReplyIfError(ctx, ctx.engine().CompactAll())) return;
  ctx.reply.Ok();
}

void RawKeysSub(CommandContext& ctx, Args) {
  auto count = ctx.engine().CountRawEntries();
  if (ReplyIfError(ctx, count.status())) return;
  ctx.reply.Int(static_cast<int64_t>(*count));
}

void RawSubKeysSub(CommandContext& ctx, Args) {
  uint64_t total = 0;
  for (storage::SubFamily family : {storage::SubFamily::kSubkeys, storage::SubFamily::kZScore}) {
    auto count = ctx.engine().CountRawSubEntries(family);
    if (ReplyIfError(ctx, count.status())) return;
    total += *count;
  }
  ctx.reply.Int(static_cast<int64_t>(total));
}

void SleepSub(CommandContext& ctx, Args args) {
  double seconds = 0;
  if (!ParseDouble(args[2], &seconds) || seconds < 0) {
    ReplyError(ctx, NotFloatError());
    return;
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  ctx.reply.Ok();
}

void DebugHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "CLOCK [FREEZE [<unix_ms>] | ADVANCE <ms> | RESUME]",
      "    Read, freeze, advance or resume the server clock (limiters, expiry, TIME).",
      "COMPACT",
      "    Compact RocksDB fully; expired keys are dropped from disk.",
      "RAWKEYS",
      "    Count the raw key entries on disk, expired ones included.",
      "RAWSUBKEYS",
      "    Count the raw element entries on disk (of hashes, sets, sorted sets, lists and long",
      "    strings' chunks), orphaned ones included.",
      "SLEEP <seconds>",
      "    Stop the server for <seconds>."};
  ReplyHelp(ctx, "DEBUG", kLines);
}

constexpr Subcommand kDebugSubcommands[] = {
    {"clock", -2, ClockSub},          {"compact", 2, CompactSub}, {"rawkeys", 2, RawKeysSub},
    {"rawsubkeys", 2, RawSubKeysSub}, {"sleep", 3, SleepSub},     {"help", 2, DebugHelpSub},
};

void DebugCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kDebugSubcommands);
}

}  // namespace

void RegisterDebugCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register({"debug", -2, F::kAdmin | F::kNoScript | F::kLoading | F::kStale | F::kProtected,
                  0, 0, 0, DebugCommand, "server"});
}

}  // namespace sluice::server
