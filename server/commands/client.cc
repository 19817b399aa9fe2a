// CLIENT ID|SETNAME|GETNAME|SETINFO|LIST|INFO|KILL|UNBLOCK|GETREDIR|NO-EVICT|NO-TOUCH|TRACKING|
// CACHING|TRACKINGINFO|REPLY|HELP (the tracking ones in client_tracking.cc).

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "resp/error_messages.h"
#include "server/acl/registry.h"
#include "server/arg_cursor.h"
#include "server/commands/client_tracking.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

// CLIENT LIST's multi-mem: what the commands queued since MULTI hold.
size_t QueuedCommandBytes(const Client& c) {
  size_t bytes = 0;
  for (const std::vector<std::string>& command : c.multi_queue) {
    bytes += sizeof(command) + command.capacity() * sizeof(std::string);
    for (const std::string& arg : command) bytes += arg.size();
  }
  return bytes;
}

}  // namespace

std::string DescribeClient(const Client& c, int64_t now_ms) {
  std::string line;
  line += "id=" + std::to_string(c.id);
  line += " addr=" + c.addr;
  line += " laddr=" + c.laddr;
  line += " fd=" + std::to_string(c.fd);
  line += " name=" + c.name;
  line += " age=" + std::to_string((now_ms - c.created_ms) / 1000);
  line += " idle=" + std::to_string((now_ms - c.last_interaction_ms) / 1000);
  // Redis's letters, in its order: O monitor, P subscribed, x in MULTI or EXEC, b waiting in BLOCK
  // (or DBSIZE), t tracking, R tracking's redirect target gone, B tracking in BCAST mode, d a
  // watched key changed (EXEC will fail), e CLIENT NO-EVICT; N for none.
  std::string flags;
  if (c.monitor) flags += 'O';
  if (c.Subscriptions() > 0) flags += 'P';
  if (c.in_multi || c.in_exec) flags += 'x';
  if (c.blocked || c.paused != 0) flags += 'b';
  if (c.tracking.on) flags += 't';
  if (c.tracking.broken_redirect) flags += 'R';
  if (c.tracking.bcast) flags += 'B';
  if (c.watch_dirty) flags += 'd';
  if (c.no_evict) flags += 'e';
  line += " flags=" + (flags.empty() ? std::string("N") : flags);
  line += " db=" + std::to_string(c.db) + " sub=" + std::to_string(c.channels.size());
  line += " psub=" + std::to_string(c.patterns.size());
  line += " ssub=" + std::to_string(c.shard_channels.size()) + " multi=";
  line += c.in_multi  ? std::to_string(c.multi_queue.size())
          : c.in_exec ? std::to_string(c.exec_commands)
                      : "-1";
  const size_t multi_mem = QueuedCommandBytes(c);
  line += " qbuf=" + std::to_string(c.query_buffer_bytes);
  line += " qbuf-free=" + std::to_string(c.query_buffer_free);
  line += " argv-mem=0 multi-mem=" + std::to_string(multi_mem);
  line += " rbs=0 rbp=0 obl=0 oll=0";
  line += " omem=" + std::to_string(c.output_buffer_bytes);
  // The buffers sluice keeps for the client (Redis counts its client struct and 16 KB reply
  // buffer too, which sluice has not).
  line += " tot-mem=" +
          std::to_string(c.query_buffer_bytes + c.query_buffer_free +
                         std::max(c.output_buffer_bytes, c.output_buffer_allocated) + multi_mem);
  // w: replies wait for the socket (Redis's write handler is installed).
  line += c.output_buffer_bytes != 0 ? " events=rw" : " events=r";
  line += " cmd=";
  line += c.last_command;
  if (!c.last_subcommand.empty()) {
    line += '|';
    line += c.last_subcommand;
  }
  line += " user=" + c.user->name;
  line += " redir=" + (c.tracking.on ? std::to_string(c.tracking.redirect) : std::string("-1"));
  line += " resp=" + std::to_string(static_cast<int>(c.protocol));
  line += " lib-name=" + c.lib_name;
  line += " lib-ver=" + c.lib_ver;
  return line;
}

namespace {

// Redis's client types, as CLIENT LIST/KILL TYPE name them. sluice has no replicas or
// masters: those types select nobody.
enum class ClientType { kNormal, kPubSub, kReplica, kMaster };

// Redis's getClientTypeByName; nullopt for a name it does not know.
std::optional<ClientType> ParseClientType(std::string_view name) {
  if (EqualsIgnoreCase(name, "normal")) return ClientType::kNormal;
  if (EqualsIgnoreCase(name, "pubsub")) return ClientType::kPubSub;
  if (EqualsIgnoreCase(name, "slave") || EqualsIgnoreCase(name, "replica")) {
    return ClientType::kReplica;
  }
  if (EqualsIgnoreCase(name, "master")) return ClientType::kMaster;
  return std::nullopt;
}

// Redis's getClientType: a client with a subscription is pubsub (in RESP3 too).
ClientType TypeOf(const Client& client) {
  return client.Subscriptions() > 0 ? ClientType::kPubSub : ClientType::kNormal;
}

Status UnknownClientType(std::string_view type) {
  return Err("Unknown client type '" + std::string(type) + "'");
}

void IdSub(CommandContext& ctx, Args) { ctx.reply.Int(static_cast<int64_t>(ctx.client.id)); }

void SetNameSub(CommandContext& ctx, Args args) {
  if (!IsPrintableWithoutSpaces(args[2])) {
    ReplyError(ctx, Err(std::string(kInvalidClientName)));
    return;
  }
  ctx.client.name = std::string(args[2]);
  ctx.reply.Ok();
}

void GetNameSub(CommandContext& ctx, Args) {
  if (ctx.client.name.empty()) {
    ctx.reply.Null();
  } else {
    ctx.reply.Bulk(ctx.client.name);
  }
}

// CLIENT SETINFO LIB-NAME name | LIB-VER version (Redis 7.2; clients send it at connect).
void SetInfoSub(CommandContext& ctx, Args args) {
  bool is_name = EqualsIgnoreCase(args[2], "LIB-NAME");
  bool is_ver = EqualsIgnoreCase(args[2], "LIB-VER");
  if (!is_name && !is_ver) {
    ReplyError(ctx, Err("Unrecognized option '" + std::string(args[2]) + "'"));
    return;
  }
  if (!IsPrintableWithoutSpaces(args[3])) {
    ReplyError(ctx, Err(std::string(is_name ? "lib-name" : "lib-ver") +
                        " cannot contain spaces, newlines or special characters."));
    return;
  }
  (is_name ? ctx.client.lib_name : ctx.client.lib_ver) = std::string(args[3]);
  ctx.reply.Ok();
}

// CLIENT LIST [TYPE type | ID id [id ...]], with Redis 7.0's rules: TYPE takes exactly one
// value and ID at least one; the two do not combine; an ID that names no client lists nothing,
// and the clients come in the order of the IDs.
void ClientListSub(CommandContext& ctx, Args args) {
  const int64_t now = WallMillis();
  std::string text;
  auto add = [&](const Client& client) {
    text += DescribeClient(client, now);
    text += '\n';
  };
  const std::vector<const Client*> clients = ctx.server.actions->ListClients();
  if (args.size() == 2 || (args.size() == 4 && EqualsIgnoreCase(args[2], "TYPE"))) {
    std::optional<ClientType> type;
    if (args.size() == 4 && !(type = ParseClientType(args[3]))) {
      ReplyError(ctx, UnknownClientType(args[3]));
      return;
    }
    for (const Client* client : clients) {
      if (!type || TypeOf(*client) == *type) add(*client);
    }
  } else if (args.size() > 3 && EqualsIgnoreCase(args[2], "ID")) {
    std::vector<int64_t> ids;
    for (std::string_view arg : args.subspan(3)) {
      int64_t id = 0;
      if (!ParseInt64(arg, &id)) {
        ReplyError(ctx, Err("Invalid client ID"));
        return;
      }
      ids.push_back(id);
    }
    for (int64_t id : ids) {
      auto found = std::find_if(clients.begin(), clients.end(), [id](const Client* c) {
        return static_cast<int64_t>(c->id) == id;
      });
      if (found != clients.end()) add(**found);
    }
  } else {
    ReplyError(ctx, SyntaxError());
    return;
  }
  ctx.reply.Verbatim(text);
}

void ClientInfoSub(CommandContext& ctx, Args) {
  ctx.reply.Verbatim(DescribeClient(ctx.client, WallMillis()) + "\n");
}

// CLIENT KILL addr:port (old form, +OK) or CLIENT KILL <filter> <value> ... (count).
void ClientKillSub(CommandContext& ctx, Args args) {
  auto clients = ctx.server.actions->ListClients();
  if (args.size() == 3) {
    for (const Client* client : clients) {
      if (client->addr == args[2]) {
        ctx.server.actions->KillClient(client->id);
        ctx.reply.Ok();
        return;
      }
    }
    ReplyError(ctx, Err("No such client"));
    return;
  }
  std::optional<uint64_t> id;
  std::optional<std::string_view> addr, laddr;
  bool skip_me = true;
  std::optional<ClientType> type;
  std::shared_ptr<const AclUser> user;  // USER: that user's connections only
  ArgCursor cursor(args.subspan(2));
  while (!cursor.Done()) {
    if (cursor.Remaining() < 2) {
      cursor.Fail(SyntaxError());
    } else if (cursor.NextIf("ID")) {
      uint64_t value = 0;
      if (!ParseUint64(cursor.Next(), &value) || value == 0) {
        cursor.Fail(Err("client-id should be greater than 0"));
      }
      id = value;
    } else if (cursor.NextIf("ADDR")) {
      addr = cursor.Next();
    } else if (cursor.NextIf("LADDR")) {
      laddr = cursor.Next();
    } else if (cursor.NextIf("SKIPME")) {
      std::string_view value = cursor.Next();
      if (EqualsIgnoreCase(value, "yes")) {
        skip_me = true;
      } else if (EqualsIgnoreCase(value, "no")) {
        skip_me = false;
      } else {
        cursor.Fail(SyntaxError());
      }
    } else if (cursor.NextIf("TYPE")) {
      std::string_view name = cursor.Next();
      if (!(type = ParseClientType(name))) cursor.Fail(UnknownClientType(name));
    } else if (cursor.NextIf("USER")) {
      std::string_view name = cursor.Next();
      user = ctx.server.acl->Find(name);
      if (user == nullptr) cursor.Fail(Err("No such user '" + std::string(name) + "'"));
    } else {
      cursor.Fail(SyntaxError());
    }
  }
  if (ReplyIfError(ctx, cursor.status())) return;
  int64_t killed = 0;
  for (const Client* client : clients) {
    if (type && TypeOf(*client) != *type) continue;
    if (id && client->id != *id) continue;
    if (addr && client->addr != *addr) continue;
    if (laddr && client->laddr != *laddr) continue;
    if (skip_me && client->id == ctx.client.id) continue;
    if (user && client->user != user) continue;
    if (ctx.server.actions->KillClient(client->id)) killed++;
  }
  ctx.reply.Int(killed);
}

// ON or OFF, in any case; nullopt for anything else.
std::optional<bool> OnOrOff(std::string_view arg) {
  if (EqualsIgnoreCase(arg, "on")) return true;
  if (EqualsIgnoreCase(arg, "off")) return false;
  return std::nullopt;
}

// CLIENT NO-EVICT on|off: kept for CLIENT LIST's `e` flag (sluice never evicts clients).
void NoEvictSub(CommandContext& ctx, Args args) {
  std::optional<bool> on = OnOrOff(args[2]);
  if (!on) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  ctx.client.no_evict = *on;
  ctx.reply.Ok();
}

// CLIENT NO-TOUCH on|off: accepted (sluice keeps no LRU clock).
void OnOffSub(CommandContext& ctx, Args args) {
  if (OnOrOff(args[2])) {
    ctx.reply.Ok();
  } else {
    ReplyError(ctx, SyntaxError());
  }
}

// CLIENT REPLY ON|OFF|SKIP: only ON answers (the session drops the others' replies).
void ReplySub(CommandContext& ctx, Args args) {
  if (EqualsIgnoreCase(args[2], "on")) {
    ctx.client.reply_off = false;
    ctx.client.reply_skip = false;  // ON answers even right after a SKIP, as in Redis
    ctx.reply.Ok();
  } else if (EqualsIgnoreCase(args[2], "off")) {
    ctx.client.reply_off = true;
  } else if (EqualsIgnoreCase(args[2], "skip")) {
    if (!ctx.client.reply_off) ctx.client.reply_skip_next = true;
  } else {
    ReplyError(ctx, SyntaxError());
  }
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]: a client blocked on keys (BLPOP and kin) or in BLOCK gets
// what its timeout would answer, or -UNBLOCKED; 1 if there was one. The reason is read before
// the id, as Redis (clientCommand) does.
void UnblockSub(CommandContext& ctx, Args args) {
  if (args.size() > 4) {
    ReplyError(ctx, Err(resp::SubcommandSyntaxError(args[1], args[0])));
    return;
  }
  bool error = false;
  if (args.size() == 4) {
    if (EqualsIgnoreCase(args[3], "error")) {
      error = true;
    } else if (!EqualsIgnoreCase(args[3], "timeout")) {
      ReplyError(ctx, Err("CLIENT UNBLOCK reason should be TIMEOUT or ERROR"));
      return;
    }
  }
  int64_t id = 0;
  if (!ParseInt64(args[2], &id)) {
    ReplyError(ctx, NotIntegerError());
    return;
  }
  const bool unblocked =
      id > 0 && ctx.server.actions->UnblockClient(static_cast<uint64_t>(id), error);
  ctx.reply.Int(unblocked ? 1 : 0);
}

// CLIENT PAUSE timeout [WRITE|ALL]: the mode is read before the timeout, as Redis 7.0 does;
// a timeout of 0 pauses nothing.
void PauseSub(CommandContext& ctx, Args args) {
  PauseMode mode = PauseMode::kAll;
  if (args.size() == 4) {
    if (EqualsIgnoreCase(args[3], "write")) {
      mode = PauseMode::kWrite;
    } else if (!EqualsIgnoreCase(args[3], "all")) {
      ReplyError(ctx, Err("CLIENT PAUSE mode must be WRITE or ALL"));
      return;
    }
  } else if (args.size() > 4) {
    ReplyError(ctx, Err(resp::SubcommandSyntaxError(args[1], args[0])));
    return;
  }
  StatusOr<int64_t> timeout_ms = ParseTimeoutMs(args[2]);
  if (!timeout_ms.ok()) {
    ReplyError(ctx, timeout_ms.status());
    return;
  }
  const int64_t now_ms = ctx.clock_ms();
  if (*timeout_ms > std::numeric_limits<int64_t>::max() - now_ms) {
    ReplyError(ctx, Err("timeout is out of range"));
    return;
  }
  if (*timeout_ms > 0) ctx.server.actions->StartClientPause(mode, now_ms + *timeout_ms);
  ctx.reply.Ok();
}

void UnpauseSub(CommandContext& ctx, Args) {
  ctx.server.actions->EndClientPause();
  ctx.reply.Ok();
}

void ClientHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port> | <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options: ID, ADDR, LADDR, TYPE, USER, SKIPME.",
      "LIST [TYPE <type> | ID <id> [<id> ...]]",
      "    Return information about client connections.",
      "GETNAME",
      "    Return the name of the current connection.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "SETINFO <LIB-NAME|LIB-VER> <value>",
      "    Set client library name or version.",
      "CACHING (YES|NO)",
      "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
      "GETREDIR",
      "    Return the client ID we are redirecting to when tracking is enabled.",
      "NO-EVICT (ON|OFF)",
      "    Accepted; clients are never evicted.",
      "NO-TOUCH (ON|OFF)",
      "    Accepted; keys keep no access time.",
      "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
      "         [OPTIN] [OPTOUT] [NOLOOP]",
      "    Control server assisted client side caching.",
      "TRACKINGINFO",
      "    Report tracking status for the current connection.",
      "REPLY (ON|OFF|SKIP)",
      "    Control the replies sent to the current connection.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]",
      "    Unblock the specified blocked client.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic."};
  ReplyHelp(ctx, "CLIENT", kLines);
}

// `true`: administrative (Redis's admin flag), which MONITOR does not show.
constexpr Subcommand kClientSubcommands[] = {
    {"id", 2, IdSub},
    {"setname", 3, SetNameSub},
    {"getname", 2, GetNameSub},
    {"setinfo", 4, SetInfoSub},
    // Redis's tip: the connections' fields (age, idle, ...) change by themselves.
    WithTips({"list", -2, ClientListSub, true}, kNondeterministic),
    WithTips({"info", 2, ClientInfoSub}, kNondeterministic),
    {"kill", -3, ClientKillSub, true},
    {"unblock", -3, UnblockSub, true},
    {"pause", -3, PauseSub, true},
    {"unpause", 2, UnpauseSub, true},
    {"help", 2, ClientHelpSub},
    {"getredir", 2, ClientGetRedirSub},
    {"caching", 3, ClientCachingSub},
    {"trackinginfo", 2, ClientTrackingInfoSub},
    {"no-evict", 3, NoEvictSub, true},
    {"no-touch", 3, OnOffSub},
    {"tracking", -3, ClientTrackingSub},
    {"reply", 3, ReplySub},
};

void ClientCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kClientSubcommands);
}

}  // namespace

void RegisterClientCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register({"client", -2, F::kNoScript | F::kLoading | F::kStale, 0, 0, 0, ClientCommand,
                  "connection", kClientSubcommands});
}

}  // namespace sluice::server
