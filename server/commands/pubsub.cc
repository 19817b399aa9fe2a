// PUBLISH, SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE and PUBSUB, as Redis 7.0 (without
// cluster shard channels: SHARDCHANNELS and SHARDNUMSUB answer as a server that has none).
// Subscription replies are RESP3 pushes (RESP2 arrays), one per channel or pattern.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "resp/error_messages.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

// ["subscribe", name, count]; a null name when UNSUBSCRIBE had nothing to leave.
void ReplySubscription(CommandContext& ctx, std::string_view kind,
                       std::optional<std::string_view> name) {
  ctx.reply.Push(3);
  ctx.reply.Bulk(kind);
  if (name) {
    ctx.reply.Bulk(*name);
  } else {
    ctx.reply.Null();
  }
  ctx.reply.Int(static_cast<int64_t>(ctx.client.Subscriptions()));
}

// SUBSCRIBE and PSUBSCRIBE: one reply per name, subscribed already or not.
template <bool kPatterns>
void JoinCommand(CommandContext& ctx, Args args) {
  for (size_t i = 1; i < args.size(); ++i) {
    if constexpr (kPatterns) {
      ctx.server.pubsub.PSubscribe(ctx.client, args[i]);
    } else {
      ctx.server.pubsub.Subscribe(ctx.client, args[i]);
    }
    ReplySubscription(ctx, kPatterns ? "psubscribe" : "subscribe", args[i]);
  }
}

// UNSUBSCRIBE and PUNSUBSCRIBE: the names given, or (none given) everything subscribed, in no
// particular order (as Redis's dict); one reply each, or one with a null name when there was
// nothing.
template <bool kPatterns>
void LeaveCommand(CommandContext& ctx, Args args) {
  constexpr std::string_view kKind = kPatterns ? "punsubscribe" : "unsubscribe";
  PubSub& pubsub = ctx.server.pubsub;
  auto leave = [&](std::string_view name) {
    if constexpr (kPatterns) {
      pubsub.PUnsubscribe(ctx.client, name);
    } else {
      pubsub.Unsubscribe(ctx.client, name);
    }
    ReplySubscription(ctx, kKind, name);
  };
  if (args.size() > 1) {
    for (size_t i = 1; i < args.size(); ++i) leave(args[i]);
    return;
  }
  const StringSet& subscribed = kPatterns ? ctx.client.patterns : ctx.client.channels;
  const std::vector<std::string> all(subscribed.begin(), subscribed.end());
  if (all.empty()) ReplySubscription(ctx, kKind, std::nullopt);
  for (const std::string& name : all) leave(name);
}

void PublishCommand(CommandContext& ctx, Args args) {
  ctx.reply.Int(ctx.server.pubsub.Publish(args[1], args[2]));
}

void PubSubChannelsSub(CommandContext& ctx, Args args) {
  if (args.size() > 3) {
    ReplyError(ctx, Err(resp::SubcommandSyntaxError(args[1], args[0])));
    return;
  }
  ReplyBulks(ctx, ctx.server.pubsub.Channels(
                      args.size() == 3 ? std::optional<std::string_view>(args[2]) : std::nullopt));
}

// NUMSUB and SHARDNUMSUB: each channel named, then its subscribers, in a flat array in RESP3
// too, as Redis 7.0 (sluice has no shard channels, so none listen on one).
template <bool kShard>
void PubSubNumSubSub(CommandContext& ctx, Args args) {
  ctx.reply.Array(static_cast<int64_t>(2 * (args.size() - 2)));
  for (size_t i = 2; i < args.size(); ++i) {
    ctx.reply.Bulk(args[i]);
    ctx.reply.Int(kShard ? 0 : static_cast<int64_t>(ctx.server.pubsub.SubscriberCount(args[i])));
  }
}

void PubSubNumPatSub(CommandContext& ctx, Args) {
  ctx.reply.Int(static_cast<int64_t>(ctx.server.pubsub.pattern_count()));
}

void PubSubShardChannelsSub(CommandContext& ctx, Args) { ctx.reply.Array(0); }

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

constexpr Subcommand kPubSubSubcommands[] = {
    {"channels", -2, PubSubChannelsSub},
    {"numsub", -2, PubSubNumSubSub<false>},
    {"numpat", 2, PubSubNumPatSub},
    {"shardchannels", -2, PubSubShardChannelsSub},
    {"shardnumsub", -2, PubSubNumSubSub<true>},
    {"help", 2, PubSubHelpSub},
};

void PubSubCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kPubSubSubcommands);
}

}  // namespace

void RegisterPubSubCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kSubscribe = F::kPubSub | F::kNoScript | F::kLoading | F::kStale;
  table.Register({"subscribe", -2, kSubscribe, 0, 0, 0, JoinCommand<false>, "pubsub",
                  "Listens for messages published to channels."});
  table.Register({"unsubscribe", -1, kSubscribe, 0, 0, 0, LeaveCommand<false>, "pubsub",
                  "Stops listening to messages posted to channels."});
  table.Register({"psubscribe", -2, kSubscribe, 0, 0, 0, JoinCommand<true>, "pubsub",
                  "Listens for messages published to channels that match one or more "
                  "patterns."});
  table.Register({"punsubscribe", -1, kSubscribe, 0, 0, 0, LeaveCommand<true>, "pubsub",
                  "Stops listening to messages published to channels that match one or more "
                  "patterns."});
  // May replicate (Redis propagates it): refused in read-only scripts, as there.
  table.Register({"publish", 3,
                  F::kPubSub | F::kLoading | F::kStale | F::kFast | F::kMayReplicate, 0, 0, 0,
                  PublishCommand, "pubsub", "Posts a message to a channel."});
  table.Register({"pubsub", -2, F::kNone, 0, 0, 0, PubSubCommand, "pubsub",
                  "A container for Pub/Sub commands.", kPubSubSubcommands});
}

}  // namespace sluice::server
