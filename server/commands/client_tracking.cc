// CLIENT TRACKING|CACHING|GETREDIR|TRACKINGINFO: client-side caching (server/tracking.h), with
// Redis 7.0's argument rules and error texts (networking.c's clientCommand).

#include "server/commands/client_tracking.h"

#include <string>
#include <vector>

#include "server/arg_cursor.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

// Redis's checkPrefixCollisionsOrReply: no new prefix may overlap one the client has or
// another new one (both would match some key).
Status CheckPrefixes(const Client& client, std::span<const std::string_view> prefixes) {
  for (size_t i = 0; i < prefixes.size(); ++i) {
    for (const std::string& existing : client.tracking.prefixes) {
      if (TrackingTable::PrefixesOverlap(existing, prefixes[i])) {
        return Err("Prefix '" + std::string(prefixes[i]) + "' overlaps with an existing prefix '" +
                   existing + "'. Prefixes for a single client must not overlap.");
      }
    }
    for (size_t j = i + 1; j < prefixes.size(); ++j) {
      if (TrackingTable::PrefixesOverlap(prefixes[i], prefixes[j])) {
        return Err("Prefix '" + std::string(prefixes[i]) +
                   "' overlaps with another provided prefix '" + std::string(prefixes[j]) +
                   "'. Prefixes for a single client must not overlap.");
      }
    }
  }
  return Status::Ok();
}

// CLIENT TRACKING ON's checks, in Redis's order, against the client's current mode.
Status CheckTrackingOn(const Client& client, const TrackingMode& mode,
                       std::span<const std::string_view> prefixes) {
  const ClientTracking& now = client.tracking;
  if (!mode.bcast && !prefixes.empty()) {
    return Err("PREFIX option requires BCAST mode to be enabled");
  }
  if (now.on && now.bcast != mode.bcast) {
    return Err(
        "You can't switch BCAST mode on/off before disabling tracking for this "
        "client, and then re-enabling it with a different mode.");
  }
  if (mode.bcast && (mode.optin || mode.optout)) {
    return Err("OPTIN and OPTOUT are not compatible with BCAST");
  }
  if (mode.optin && mode.optout) return Err("You can't specify both OPTIN mode and OPTOUT mode");
  if ((mode.optin && now.optout) || (mode.optout && now.optin)) {
    return Err(
        "You can't switch OPTIN/OPTOUT mode before disabling tracking for this "
        "client, and then re-enabling it with a different mode.");
  }
  if (mode.bcast) return CheckPrefixes(client, prefixes);
  return Status::Ok();
}

}  // namespace

// CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST] [PREFIX p ...] [OPTIN] [OPTOUT] [NOLOOP]: the
// options are read first (a REDIRECT to a client that does not exist fails even with OFF),
// then ON checks how they combine.
void ClientTrackingSub(CommandContext& ctx, Args args) {
  uint64_t redirect = 0;
  TrackingMode mode;
  std::vector<std::string_view> prefixes;
  for (size_t i = 3; i < args.size(); ++i) {
    const bool more = i + 1 < args.size();
    if (EqualsIgnoreCase(args[i], "redirect") && more) {
      ++i;
      if (redirect != 0) {
        ReplyError(ctx, Err("A client can only redirect to a single other client"));
        return;
      }
      int64_t id = 0;
      if (!ParseInt64(args[i], &id)) {
        ReplyError(ctx, NotIntegerError());
        return;
      }
      // The target must exist now, though it may go away later.
      if (id <= 0 || ctx.server.tracking.FindClient(static_cast<uint64_t>(id)) == nullptr) {
        ReplyError(ctx, Err("The client ID you want redirect to does not exist"));
        return;
      }
      redirect = static_cast<uint64_t>(id);
    } else if (EqualsIgnoreCase(args[i], "bcast")) {
      mode.bcast = true;
    } else if (EqualsIgnoreCase(args[i], "optin")) {
      mode.optin = true;
    } else if (EqualsIgnoreCase(args[i], "optout")) {
      mode.optout = true;
    } else if (EqualsIgnoreCase(args[i], "noloop")) {
      mode.noloop = true;
    } else if (EqualsIgnoreCase(args[i], "prefix") && more) {
      prefixes.push_back(args[++i]);
    } else {
      ReplyError(ctx, SyntaxError());
      return;
    }
  }
  if (EqualsIgnoreCase(args[2], "on")) {
    if (Status checked = CheckTrackingOn(ctx.client, mode, prefixes); !checked.ok()) {
      ReplyError(ctx, checked);
      return;
    }
    ctx.server.tracking.Enable(ctx.client, redirect, mode, prefixes);
  } else if (EqualsIgnoreCase(args[2], "off")) {
    ctx.server.tracking.Disable(ctx.client);
  } else {
    ReplyError(ctx, SyntaxError());
    return;
  }
  ctx.reply.Ok();
}

// CLIENT CACHING YES|NO: in OPTIN mode YES, in OPTOUT mode NO, for the next command.
void ClientCachingSub(CommandContext& ctx, Args args) {
  ClientTracking& t = ctx.client.tracking;
  if (!t.on) {
    ReplyError(ctx, Err("CLIENT CACHING can be called only when the client is in tracking "
                        "mode with OPTIN or OPTOUT mode enabled"));
    return;
  }
  if (EqualsIgnoreCase(args[2], "yes")) {
    if (!t.optin) {
      ReplyError(ctx, Err("CLIENT CACHING YES is only valid when tracking is enabled in "
                          "OPTIN mode."));
      return;
    }
  } else if (EqualsIgnoreCase(args[2], "no")) {
    if (!t.optout) {
      ReplyError(ctx, Err("CLIENT CACHING NO is only valid when tracking is enabled in "
                          "OPTOUT mode."));
      return;
    }
  } else {
    ReplyError(ctx, SyntaxError());
    return;
  }
  t.caching = true;
  ctx.reply.Ok();
}

// CLIENT GETREDIR: -1 with tracking off, 0 on without a redirect, else the target's id.
void ClientGetRedirSub(CommandContext& ctx, Args) {
  const ClientTracking& t = ctx.client.tracking;
  ctx.reply.Int(t.on ? static_cast<int64_t>(t.redirect) : -1);
}

// CLIENT TRACKINGINFO: a map of flags (a set), redirect and prefixes, as Redis 7.0.
void ClientTrackingInfoSub(CommandContext& ctx, Args) {
  const ClientTracking& t = ctx.client.tracking;
  std::vector<std::string_view> flags = {t.on ? "on" : "off"};
  if (t.bcast) flags.push_back("bcast");
  if (t.optin) {
    flags.push_back("optin");
    if (t.caching) flags.push_back("caching-yes");
  }
  if (t.optout) {
    flags.push_back("optout");
    if (t.caching) flags.push_back("caching-no");
  }
  if (t.noloop) flags.push_back("noloop");
  if (t.broken_redirect) flags.push_back("broken_redirect");
  ctx.reply.Map(3);
  ctx.reply.Bulk("flags");
  ctx.reply.Set(static_cast<int64_t>(flags.size()));
  for (std::string_view flag : flags) ctx.reply.Bulk(flag);
  ctx.reply.Bulk("redirect");
  ctx.reply.Int(t.on ? static_cast<int64_t>(t.redirect) : -1);
  ctx.reply.Bulk("prefixes");
  ctx.reply.Array(static_cast<int64_t>(t.prefixes.size()));
  for (const std::string& prefix : t.prefixes) ctx.reply.Bulk(prefix);
}

}  // namespace sluice::server
