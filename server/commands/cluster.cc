// CLUSTER, READONLY, READWRITE and ASKING as a Redis 7.0 started without cluster support
// answers them: sluice is one server, never a cluster node. A client that probes for cluster
// mode (CLUSTER INFO, CLUSTER SLOTS) gets Redis's "cluster support disabled"; a wrong argument
// count or an unknown subcommand is refused first, by the dispatcher, as in Redis.

#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

void ClusterDisabled(CommandContext& ctx, Args) {
  ReplyError(ctx, Err("This instance has cluster support disabled"));
}

// Redis 7.0's subcommands, arities and tips (the state they report changes by itself);
// `true`: administrative.
constexpr Subcommand kClusterSubcommands[] = {
    {"addslots", -3, ClusterDisabled, true},
    {"addslotsrange", -4, ClusterDisabled, true},
    WithTips({"bumpepoch", 2, ClusterDisabled, true}, kNondeterministic),
    WithTips({"count-failure-reports", 3, ClusterDisabled, true}, kNondeterministic),
    {"countkeysinslot", 3, ClusterDisabled},
    {"delslots", -3, ClusterDisabled, true},
    {"delslotsrange", -4, ClusterDisabled, true},
    {"failover", -2, ClusterDisabled, true},
    {"flushslots", 2, ClusterDisabled, true},
    {"forget", 3, ClusterDisabled, true},
    WithTips({"getkeysinslot", 4, ClusterDisabled}, kNondeterministic),
    {"help", 2, ClusterDisabled},
    WithTips({"info", 2, ClusterDisabled}, kNondeterministic),
    {"keyslot", 3, ClusterDisabled},
    WithTips({"links", 2, ClusterDisabled}, kNondeterministic),
    {"meet", -4, ClusterDisabled, true},
    {"myid", 2, ClusterDisabled},
    WithTips({"nodes", 2, ClusterDisabled}, kNondeterministic),
    WithTips({"replicas", 3, ClusterDisabled, true}, kNondeterministic),
    {"replicate", 3, ClusterDisabled, true},
    {"reset", -2, ClusterDisabled, true},
    {"saveconfig", 2, ClusterDisabled, true},
    {"set-config-epoch", 3, ClusterDisabled, true},
    {"setslot", -4, ClusterDisabled, true},
    WithTips({"shards", 2, ClusterDisabled}, kNondeterministic),
    WithTips({"slaves", 3, ClusterDisabled, true}, kNondeterministic),
    WithTips({"slots", 2, ClusterDisabled}, kNondeterministic),
};

void ClusterCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kClusterSubcommands);
}

constexpr std::string_view kClientCategories[] = {"@fast", "@connection"};

}  // namespace

void RegisterClusterCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register(
      {"cluster", -2, F::kNone, 0, 0, 0, ClusterCommand, "cluster", kClusterSubcommands});
  const F kClient = F::kFast | F::kLoading | F::kStale;
  CommandSpec client_commands[] = {
      {"readonly", 1, kClient, 0, 0, 0, ClusterDisabled, "cluster"},
      {"readwrite", 1, kClient, 0, 0, 0, ClusterDisabled, "cluster"},
      {"asking", 1, F::kFast, 0, 0, 0, ClusterDisabled, "cluster"},
  };
  for (CommandSpec& spec : client_commands) {
    spec.acl_categories = kClientCategories;
    table.Register(spec);
  }
}

}  // namespace sluice::server
