// PUBLISH, SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, SPUBLISH, SSUBSCRIBE,
// SUNSUBSCRIBE and PUBSUB, as Redis 7.0 without cluster (every shard channel is this server's).
// Subscription replies are RESP3 pushes (RESP2 arrays), one per channel or pattern.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "resp/error_messages.h"
#include "resp/resp_writer.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

// What a subscription names: a channel, a pattern or a shard channel.
enum class Target { kChannel, kPattern, kShardChannel };

// ["subscribe", name, count]; a null name when UNSUBSCRIBE had nothing to leave. The count is
// the client's channels and patterns, or (shard channels) its shard channels alone, as Redis's.
void WriteSubscription(resp::ReplyBuilder& out, const Client& client, Target target,
                       std::string_view kind, std::optional<std::string_view> name) {
  out.Push(3);
  out.Bulk(kind);
  if (name) {
    out.Bulk(*name);
  } else {
    out.Null();
  }
  const size_t count = target == Target::kShardChannel ? client.shard_channels.size()
                                                       : client.ChannelAndPatternCount();
  out.Int(static_cast<int64_t>(count));
}

// A confirmation is sent even while replies are off (CLIENT REPLY OFF or SKIP), as Redis 7.0
// sends it: as a push, so it stays when the command's reply is dropped.
void ReplySubscription(CommandContext& ctx, Target target, std::string_view kind,
                       std::optional<std::string_view> name) {
  Client& client = ctx.client;
  if ((client.reply_off || client.reply_skip) && client.push_sink != nullptr) {
    std::string bytes;
    resp::RespWriter push(&bytes, client.protocol);
    WriteSubscription(push, client, target, kind, name);
    client.push_sink->DeliverPush(bytes, /*after_reply=*/false);
    return;
  }
  WriteSubscription(ctx.reply, client, target, kind, name);
}

// SUBSCRIBE, PSUBSCRIBE and SSUBSCRIBE: one reply per name, subscribed already or not.
template <Target kTarget>
void JoinCommand(CommandContext& ctx, Args args) {
  if constexpr (kTarget == Target::kShardChannel) {
    // Redis refuses it where a reply per command is expected (inside EXEC), unlike SUBSCRIBE.
    if (ctx.client.deny_blocking) {
      ReplyError(ctx, Err("SSUBSCRIBE isn't allowed for a DENY BLOCKING client"));
      return;
    }
  }
  constexpr std::string_view kKind = kTarget == Target::kChannel   ? "subscribe"
                                     : kTarget == Target::kPattern ? "psubscribe"
                                                                   : "ssubscribe";
  PubSub& pubsub = ctx.server.pubsub;
  for (size_t i = 1; i < args.size(); ++i) {
    if constexpr (kTarget == Target::kChannel) pubsub.Subscribe(ctx.client, args[i]);
    if constexpr (kTarget == Target::kPattern) pubsub.PSubscribe(ctx.client, args[i]);
    if constexpr (kTarget == Target::kShardChannel) pubsub.SSubscribe(ctx.client, args[i]);
    ReplySubscription(ctx, kTarget, kKind, args[i]);
  }
}

// UNSUBSCRIBE, PUNSUBSCRIBE and SUNSUBSCRIBE: the names given, or (none given) everything
// subscribed: channels in no particular order (as Redis's dict), patterns in the order
// subscribed (as Redis's list); one reply each, or one with a null name when there was nothing.
template <Target kTarget>
void LeaveCommand(CommandContext& ctx, Args args) {
  constexpr std::string_view kKind = kTarget == Target::kChannel   ? "unsubscribe"
                                     : kTarget == Target::kPattern ? "punsubscribe"
                                                                   : "sunsubscribe";
  PubSub& pubsub = ctx.server.pubsub;
  auto leave = [&](std::string_view name) {
    if constexpr (kTarget == Target::kChannel) pubsub.Unsubscribe(ctx.client, name);
    if constexpr (kTarget == Target::kPattern) pubsub.PUnsubscribe(ctx.client, name);
    if constexpr (kTarget == Target::kShardChannel) pubsub.SUnsubscribe(ctx.client, name);
    ReplySubscription(ctx, kTarget, kKind, name);
  };
  if (args.size() > 1) {
    for (size_t i = 1; i < args.size(); ++i) leave(args[i]);
    return;
  }
  std::vector<std::string> all;
  if constexpr (kTarget == Target::kPattern) {
    all.assign(ctx.client.patterns.begin(), ctx.client.patterns.end());  // in subscription order
  } else {
    const StringSet& subscribed =
        kTarget == Target::kChannel ? ctx.client.channels : ctx.client.shard_channels;
    all.assign(subscribed.begin(), subscribed.end());
  }
  if (all.empty()) ReplySubscription(ctx, kTarget, kKind, std::nullopt);
  for (const std::string& name : all) leave(name);
}

void PublishCommand(CommandContext& ctx, Args args) {
  ctx.reply.Int(ctx.server.pubsub.Publish(args[1], args[2]));
}

void SPublishCommand(CommandContext& ctx, Args args) {
  ctx.reply.Int(ctx.server.pubsub.SPublish(args[1], args[2]));
}

// CHANNELS and SHARDCHANNELS [pattern].
template <bool kShard>
void PubSubChannelsSub(CommandContext& ctx, Args args) {
  if (args.size() > 3) {
    ReplyError(ctx, Err(resp::SubcommandSyntaxError(args[1], args[0])));
    return;
  }
  const auto glob =
      args.size() == 3 ? std::optional<std::string_view>(args[2]) : std::nullopt;
  ReplyBulks(ctx, kShard ? ctx.server.pubsub.ShardChannels(glob)
                         : ctx.server.pubsub.Channels(glob));
}

// NUMSUB and SHARDNUMSUB: each channel named, then its subscribers, in a flat array in RESP3
// too, as Redis 7.0.
template <bool kShard>
void PubSubNumSubSub(CommandContext& ctx, Args args) {
  const PubSub& pubsub = ctx.server.pubsub;
  ctx.reply.Array(static_cast<int64_t>(2 * (args.size() - 2)));
  for (size_t i = 2; i < args.size(); ++i) {
    ctx.reply.Bulk(args[i]);
    ctx.reply.Int(static_cast<int64_t>(kShard ? pubsub.ShardSubscriberCount(args[i])
                                              : pubsub.SubscriberCount(args[i])));
  }
}

void PubSubNumPatSub(CommandContext& ctx, Args) {
  ctx.reply.Int(static_cast<int64_t>(ctx.server.pubsub.pattern_count()));
}

void PubSubHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]",
      "    Return the currently active shard level channels matching a <pattern> (default: "
      "'*').",
      "SHARDNUMSUB [<shardchannel> ...]",
      "    Return the number of subscribers for the specified shard level channel(s)"};
  ReplyHelp(ctx, "PUBSUB", kLines);
}

// Redis's categories of the PUBSUB subcommands (the container, and HELP, are @slow alone).
constexpr std::string_view kPubSubCategories[] = {"@pubsub", "@slow"};
constexpr std::string_view kPubSubHelpCategories[] = {"@slow"};

constexpr Subcommand kPubSubSubcommands[] = {
    WithAclCategories({"channels", -2, PubSubChannelsSub<false>}, kPubSubCategories),
    WithAclCategories({"numsub", -2, PubSubNumSubSub<false>}, kPubSubCategories),
    WithAclCategories({"numpat", 2, PubSubNumPatSub}, kPubSubCategories),
    WithAclCategories({"shardchannels", -2, PubSubChannelsSub<true>}, kPubSubCategories),
    WithAclCategories({"shardnumsub", -2, PubSubNumSubSub<true>}, kPubSubCategories),
    WithAclCategories({"help", 2, PubSubHelpSub}, kPubSubHelpCategories),
};

void PubSubCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kPubSubSubcommands);
}

}  // namespace

void RegisterPubSubCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kSubscribe = F::kPubSub | F::kNoScript | F::kLoading | F::kStale;
  table.Register({"subscribe", -2, kSubscribe | F::kChannelSubscribe, 0, 0, 0,
                  JoinCommand<Target::kChannel>, "pubsub"});
  table.Register(
      {"unsubscribe", -1, kSubscribe, 0, 0, 0, LeaveCommand<Target::kChannel>, "pubsub"});
  table.Register({"psubscribe", -2, kSubscribe | F::kChannelSubscribe | F::kChannelPattern, 0, 0, 0,
                  JoinCommand<Target::kPattern>, "pubsub"});
  table.Register(
      {"punsubscribe", -1, kSubscribe, 0, 0, 0, LeaveCommand<Target::kPattern>, "pubsub"});
  // May replicate (Redis propagates it): refused in read-only scripts, as there.
  table.Register(
      {"publish", 3,
       F::kPubSub | F::kLoading | F::kStale | F::kFast | F::kMayReplicate | F::kChannelPublish, 0,
       0, 0, PublishCommand, "pubsub"});
  // The shard channels sit where keys would (COMMAND INFO's first/last key and a not_key key
  // spec, kShardChannels), but are no keys: nothing else takes them for keys.
  const F kShardSubscribe = kSubscribe | F::kShardChannels;
  table.Register({"ssubscribe", -2, kShardSubscribe | F::kChannelSubscribe, 0, 0, 0,
                  JoinCommand<Target::kShardChannel>, "pubsub"});
  table.Register({"sunsubscribe", -1, kShardSubscribe, 0, 0, 0, LeaveCommand<Target::kShardChannel>,
                  "pubsub"});
  table.Register({"spublish", 3,
                  F::kPubSub | F::kLoading | F::kStale | F::kFast | F::kMayReplicate |
                      F::kShardChannels | F::kChannelPublish,
                  0, 0, 0, SPublishCommand, "pubsub"});
  table.Register({"pubsub", -2, F::kNone, 0, 0, 0, PubSubCommand, "pubsub", kPubSubSubcommands});
}

}  // namespace sluice::server
