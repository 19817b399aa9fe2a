// LATENCY LATEST, HISTORY, RESET, GRAPH, DOCTOR, HISTOGRAM, HELP: Redis 7.0's command over the
// latency monitor's events (server/latency_monitor.h) and the per-command latency histograms
// the dispatcher keeps (server/metrics/command_latency.h).

#include <cstdint>
#include <string_view>
#include <vector>

#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

void LatencyLatestSub(CommandContext& ctx, Args) {
  const auto& events = ctx.server.latency.events();
  ctx.reply.Array(static_cast<int64_t>(events.size()));
  for (const auto& [event, series] : events) {
    ctx.reply.Array(4);
    ctx.reply.Bulk(event);
    ctx.reply.Int(series.samples.back().unix_seconds);
    ctx.reply.Int(static_cast<int64_t>(series.samples.back().millis));
    ctx.reply.Int(static_cast<int64_t>(series.max_millis));
  }
}

void LatencyHistorySub(CommandContext& ctx, Args args) {
  const LatencyMonitor::Series* series = ctx.server.latency.Find(args[2]);
  if (series == nullptr) {
    ctx.reply.Array(0);
    return;
  }
  ctx.reply.Array(static_cast<int64_t>(series->samples.size()));
  for (const LatencySample& sample : series->samples) {
    ctx.reply.Array(2);
    ctx.reply.Int(sample.unix_seconds);
    ctx.reply.Int(static_cast<int64_t>(sample.millis));
  }
}

void LatencyResetSub(CommandContext& ctx, Args args) {
  const std::vector<std::string_view> names(args.begin() + 2, args.end());
  ctx.reply.Int(static_cast<int64_t>(ctx.server.latency.Reset(names)));
}

void LatencyGraphSub(CommandContext& ctx, Args args) {
  const LatencyMonitor::Series* series = ctx.server.latency.Find(args[2]);
  if (series == nullptr) {
    ReplyError(ctx, Err("No samples available for event '" + std::string(args[2]) + "'"));
    return;
  }
  ctx.reply.Verbatim(LatencyGraph(args[2], *series, ctx.now_us / 1'000'000));
}

void LatencyDoctorSub(CommandContext& ctx, Args) {
  ctx.reply.Verbatim(
      LatencyDoctor(ctx.server.latency, ctx.server.config->latency_monitor_threshold));
}

// One command's entry: its name, then {calls, histogram_usec {bucket: calls up to it}}.
void ReplyHistogram(CommandContext& ctx, const CommandSpec& spec, const Subcommand* sub,
                    const CommandLatency& latency) {
  ctx.reply.Bulk(FullName(spec, sub));
  ctx.reply.Map(2);
  ctx.reply.Bulk("calls");
  ctx.reply.Int(static_cast<int64_t>(latency.calls()));
  ctx.reply.Bulk("histogram_usec");
  const auto points = latency.CumulativeMicros();
  ctx.reply.Map(static_cast<int64_t>(points.size()));
  for (const auto& [micros, calls] : points) {
    ctx.reply.Int(static_cast<int64_t>(micros));
    ctx.reply.Int(static_cast<int64_t>(calls));
  }
}

// LATENCY HISTOGRAM [command ...]: every tracked command (a container's subcommands with it),
// or those named; a name no command has, or one without calls, is left out, as Redis does.
void LatencyHistogramSub(CommandContext& ctx, Args args) {
  struct Entry {
    const CommandSpec* spec;
    const Subcommand* sub;
    const CommandLatency* latency;
  };
  std::vector<Entry> entries;
  auto add = [&](const CommandSpec& spec, const Subcommand* sub, bool with_subcommands) {
    if (const CommandLatency* latency = ctx.server.ops.LatencyOf(spec, sub)) {
      entries.push_back({&spec, sub, latency});
    }
    if (!with_subcommands) return;
    for (const Subcommand& each : spec.subcommands) {
      if (const CommandLatency* latency = ctx.server.ops.LatencyOf(spec, &each)) {
        entries.push_back({&spec, &each, latency});
      }
    }
  };
  if (args.size() == 2) {
    for (const CommandSpec* spec : ctx.server.commands->All()) add(*spec, nullptr, true);
  }
  for (size_t i = 2; i < args.size(); ++i) {
    auto [spec, sub] = ctx.server.commands->FindByFullName(args[i]);
    if (spec != nullptr) add(*spec, sub, sub == nullptr);
  }
  ctx.reply.Map(static_cast<int64_t>(entries.size()));
  for (const Entry& e : entries) ReplyHistogram(ctx, *e.spec, e.sub, *e.latency);
}

void LatencyHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "DOCTOR",
      "    Return a human readable latency analysis report.",
      "GRAPH <event>",
      "    Return an ASCII latency graph for the <event> class.",
      "HISTORY <event>",
      "    Return time-latency samples for the <event> class.",
      "LATEST",
      "    Return the latest latency samples for all events.",
      "RESET [<event> ...]",
      "    Reset latency data of one or more <event> classes.",
      "    (default: reset all data for all event classes)",
      "HISTOGRAM [COMMAND ...]",
      "    Return a cumulative distribution of latencies in the format of a histogram for the "
      "specified command names.",
      "    If no commands are specified then all histograms are replied."};
  ReplyHelp(ctx, "LATENCY", kLines);
}

// Redis's tips: each node's own samples, merged by the caller.
constexpr CommandTips kEachNodesSamples{CommandTip::kNondeterministicOutput,
                                        CommandTip::kRequestAllNodes, CommandTip::kResponseSpecial};

constexpr Subcommand kLatencySubcommands[] = {
    WithTips({"doctor", 2, LatencyDoctorSub}, kEachNodesSamples),
    WithTips({"graph", 3, LatencyGraphSub}, kEachNodesSamples),
    WithTips({"histogram", -2, LatencyHistogramSub}, kEachNodesSamples),
    WithTips({"history", 3, LatencyHistorySub}, kEachNodesSamples),
    WithTips({"latest", 2, LatencyLatestSub}, kEachNodesSamples),
    WithTips({"reset", -2, LatencyResetSub}, kOnAllNodes),
    {"help", 2, LatencyHelpSub},
};

void LatencyCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kLatencySubcommands);
}

}  // namespace

void RegisterLatencyCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register({"latency", -2, F::kAdmin | F::kNoScript | F::kLoading | F::kStale, 0, 0, 0,
                  LatencyCommand, "server", kLatencySubcommands});
}

}  // namespace sluice::server
