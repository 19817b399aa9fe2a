// Connection commands: PING ECHO HELLO AUTH SELECT QUIT RESET.

#include <memory>
#include <utility>

#include "resp/error_messages.h"
#include "server/acl/registry.h"
#include "server/arg_cursor.h"
#include "server/commands/auth.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Compare every byte of the longer input so the time depends only on the lengths.
  size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

// A failure is logged as Redis logs it: the object is the command's name as typed (AUTH, or
// hello), the context "multi" inside EXEC.
Status Authenticate(CommandContext& ctx, Args args, std::string_view username,
                    std::string_view password) {
  std::shared_ptr<const AclUser> user = ctx.server.acl->Authenticate(username, password);
  if (user == nullptr) {
    const int64_t now_ms = ctx.clock_ms();
    ctx.server.acl->log.Add({.reason = "auth",
                             .context = ctx.client.in_exec ? "multi" : "toplevel",
                             .object = std::string(args[0]),
                             .username = std::string(username),
                             .created_ms = now_ms,
                             .client_info = DescribeClient(ctx.client, now_ms)});
    return {Code::kWrongPass, std::string(resp::kWrongPassMsg)};
  }
  ctx.client.user = std::move(user);
  ctx.client.authenticated = true;
  return Status::Ok();
}

namespace {

void PingCommand(CommandContext& ctx, Args args) {
  if (args.size() > 2) {
    ReplyError(ctx, Err(resp::WrongArity("ping")));
  } else if (ctx.client.protocol == resp::ProtocolVersion::kResp2 &&
             ctx.client.Subscriptions() > 0) {
    // A subscribed RESP2 client reads pushes: its PONG comes as one too, as Redis.
    ctx.reply.Array(2);
    ctx.reply.Bulk("pong");
    ctx.reply.Bulk(args.size() == 2 ? args[1] : std::string_view());
  } else if (args.size() == 2) {
    ctx.reply.Bulk(args[1]);
  } else {
    ctx.reply.Simple("PONG");
  }
}

void EchoCommand(CommandContext& ctx, Args args) { ctx.reply.Bulk(args[1]); }

void AuthCommand(CommandContext& ctx, Args args) {
  if (args.size() > 3) {
    ReplyError(ctx, {Code::kSyntax, std::string(resp::kSyntaxError)});
    return;
  }
  if (args.size() == 2 && ctx.server.acl->default_user()->nopass) {
    ReplyError(ctx, Err(std::string(resp::kAuthNotConfigured)));
    return;
  }
  std::string_view username = args.size() == 3 ? args[1] : "default";
  std::string_view password = args.back();
  if (ReplyIfError(ctx, Authenticate(ctx, args, username, password))) return;
  ctx.reply.Ok();
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
void HelloCommand(CommandContext& ctx, Args args) {
  int64_t version = 0;
  size_t next = 1;
  if (args.size() >= 2) {
    if (!ParseInt64(args[1], &version)) {
      ReplyError(ctx, Err("Protocol version is not an integer or out of range"));
      return;
    }
    if (version < 2 || version > 3) {
      ReplyError(ctx, {Code::kRaw, std::string(resp::kNoProtoLine)});
      return;
    }
    next = 2;
  }
  // Each option takes effect as it is read, as in Redis 7.0: an error in a later one leaves
  // an earlier AUTH or SETNAME done (and the protocol unchanged).
  for (size_t i = next; i < args.size(); ++i) {
    size_t more = args.size() - 1 - i;
    if (EqualsIgnoreCase(args[i], "AUTH") && more >= 2) {
      if (ReplyIfError(ctx, Authenticate(ctx, args, args[i + 1], args[i + 2]))) return;
      i += 2;
    } else if (EqualsIgnoreCase(args[i], "SETNAME") && more >= 1) {
      if (!IsPrintableWithoutSpaces(args[i + 1])) {
        ReplyError(ctx, Err(std::string(kInvalidClientName)));
        return;
      }
      ctx.client.name = args[i + 1];
      i += 1;
    } else {
      ReplyError(ctx,
                 Err("Syntax error in HELLO option '" + std::string(resp::CString(args[i])) + "'"));
      return;
    }
  }
  if (!ctx.client.authenticated) {
    ReplyError(ctx, {Code::kNoAuth,
                     "HELLO must be called with the client already authenticated, otherwise "
                     "the HELLO AUTH <user> <pass> option can be used to authenticate "
                     "the client and select the RESP protocol version at the same time"});
    return;
  }
  if (version != 0) {
    ctx.client.protocol = static_cast<resp::ProtocolVersion>(version);
    ctx.reply.set_protocol(ctx.client.protocol);
  }
  ctx.reply.Map(7);
  ctx.reply.Bulk("server");
  ctx.reply.Bulk("redis");
  ctx.reply.Bulk("version");
  ctx.reply.Bulk("7.0.0");
  ctx.reply.Bulk("proto");
  ctx.reply.Int(static_cast<int64_t>(ctx.client.protocol));
  ctx.reply.Bulk("id");
  ctx.reply.Int(static_cast<int64_t>(ctx.client.id));
  ctx.reply.Bulk("mode");
  ctx.reply.Bulk("standalone");
  ctx.reply.Bulk("role");
  ctx.reply.Bulk("master");
  ctx.reply.Bulk("modules");
  ctx.reply.Array(0);
}

void SelectCommand(CommandContext& ctx, Args args) {
  StatusOr<int> db = ParseDbIndex(args[1], ctx.server.config->databases);
  if (ReplyIfError(ctx, db.status())) return;
  // The database's key space is made now, so that every later command finds it.
  if (ReplyIfError(ctx, ctx.engine().SelectDatabase(*db))) return;
  ctx.client.db = *db;
  ctx.reply.Ok();
}

void QuitCommand(CommandContext& ctx, Args) {
  ctx.reply.Ok();
  ctx.client.close_after_reply = true;
}

// RESET: back to a fresh connection's state (RESP2, no name, the default user, authenticated
// only if it needs no password).
void ResetCommand(CommandContext& ctx, Args) {
  ctx.client.protocol = resp::ProtocolVersion::kResp2;
  ctx.reply.set_protocol(ctx.client.protocol);
  ctx.client.name.clear();
  ctx.client.reply_off = false;  // RESET itself answers
  ctx.client.reply_skip_next = false;
  ctx.client.user = ctx.server.acl->default_user();
  ctx.client.authenticated = ctx.server.acl->DefaultNeedsNoAuth();
  ctx.client.db = 0;
  ctx.client.in_multi = false;
  ctx.client.multi_aborted = false;
  ctx.client.multi_queue.clear();
  ctx.server.watches.UnwatchAll(&ctx.client);
  ctx.server.tracking.Disable(ctx.client);
  ctx.server.pubsub.RemoveClient(ctx.client);
  ctx.server.monitors.Remove(&ctx.client);
  ctx.client.monitor = false;
  ctx.client.script_debug_refused = false;
  ctx.reply.Simple("RESET");
}

}  // namespace

void RegisterConnectionCommands(CommandTable& table) {
  using F = CommandFlags;
  const F kConn = F::kFast | F::kLoading | F::kStale;
  // Refused on a disk error as a write is, as Redis: a health check sees the error.
  table.Register(
      WithTips({"ping", -1, kConn | F::kRefusedOnDiskError, 0, 0, 0, PingCommand, "connection"},
               kOnAllShards));
  table.Register({"echo", 2, kConn, 0, 0, 0, EchoCommand, "connection"});
  table.Register({"auth", -2, kConn | F::kNoAuth | F::kNoScript | F::kAllowBusy, 0, 0, 0,
                  AuthCommand, "connection"});
  table.Register({"hello", -1, kConn | F::kNoAuth | F::kNoScript | F::kAllowBusy, 0, 0, 0,
                  HelloCommand, "connection"});
  table.Register({"select", 2, kConn, 0, 0, 0, SelectCommand, "connection"});
  table.Register({"quit", -1, kConn | F::kNoAuth | F::kNoScript | F::kAllowBusy | F::kNoMulti, 0, 0,
                  0, QuitCommand, "connection"});
  table.Register({"reset", 1, kConn | F::kNoAuth | F::kNoScript | F::kAllowBusy | F::kNoMulti, 0, 0,
                  0, ResetCommand, "connection"});
}

}  // namespace sluice::server
