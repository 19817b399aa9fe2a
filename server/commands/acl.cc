// ACL: users and their permissions (SETUSER GETUSER DELUSER USERS LIST WHOAMI CAT GENPASS
// DRYRUN LOG LOAD SAVE HELP), as Redis 7.0.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "resp/error_messages.h"
#include "server/acl/acl_file.h"
#include "server/acl/categories.h"
#include "server/acl/check.h"
#include "server/acl/registry.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/config_file_io.h"

namespace sluice::server {
namespace {

AclRegistry& Acl(CommandContext& ctx) { return *ctx.server.acl; }

// CAT, GENPASS and LOG take one optional argument; more is Redis's syntax error for them.
bool ReplyIfMoreThanOneArgument(CommandContext& ctx, Args args) {
  if (args.size() <= 3) return false;
  ReplyError(ctx, Err(resp::SubcommandSyntaxError(args[1], args[0])));
  return true;
}

void SetUserSub(CommandContext& ctx, Args args) {
  if (ReplyIfError(ctx, Acl(ctx).SetUser(args[2], args.subspan(3)))) return;
  ctx.reply.Ok();
}

void GetUserSub(CommandContext& ctx, Args args) {
  std::shared_ptr<const AclUser> user = Acl(ctx).Find(args[2]);
  if (user == nullptr) {
    ctx.reply.Null();
    return;
  }
  ctx.reply.Map(6);
  ctx.reply.Bulk("flags");
  const std::vector<std::string_view> flags = AclUserFlags(*user);
  ctx.reply.Set(static_cast<int64_t>(flags.size()));
  for (std::string_view flag : flags) ctx.reply.Bulk(flag);
  ctx.reply.Bulk("passwords");
  ReplyBulks(ctx, user->password_hashes);
  ctx.reply.Bulk("commands");
  ctx.reply.Bulk(DescribeAclCommands(*user, Acl(ctx).ids()));
  ctx.reply.Bulk("keys");
  ctx.reply.Bulk(DescribeAclKeys(*user));
  ctx.reply.Bulk("channels");
  ctx.reply.Bulk(DescribeAclChannels(*user));
  ctx.reply.Bulk("selectors");
  ctx.reply.Array(0);
}

// Deletes the users named (never "default") and closes their connections, as Redis.
void DelUserSub(CommandContext& ctx, Args args) {
  for (std::string_view name : args.subspan(2)) {
    if (name == "default") {
      ReplyError(ctx, Err("The 'default' user cannot be removed"));
      return;
    }
  }
  int64_t deleted = 0;
  for (std::string_view name : args.subspan(2)) {
    std::shared_ptr<const AclUser> user = Acl(ctx).Find(name);
    if (user == nullptr || !Acl(ctx).DeleteUser(name)) continue;
    ++deleted;
    for (const Client* client : ctx.server.actions->ListClients()) {
      if (client->user == user) ctx.server.actions->KillClient(client->id);
    }
  }
  ctx.reply.Int(deleted);
}

void UsersSub(CommandContext& ctx, Args) { ReplyBulks(ctx, Acl(ctx).Names()); }

void AclListSub(CommandContext& ctx, Args) { ReplyBulks(ctx, AclListLines(Acl(ctx))); }

void WhoAmISub(CommandContext& ctx, Args) { ctx.reply.Bulk(ctx.client.user->name); }

// ACL CAT: the categories, or the commands (and subcommands) of one.
void CatSub(CommandContext& ctx, Args args) {
  if (ReplyIfMoreThanOneArgument(ctx, args)) return;
  if (args.size() == 2) {
    ctx.reply.Array(static_cast<int64_t>(std::size(kAclCategoryNames)));
    for (std::string_view name : kAclCategoryNames) ctx.reply.Bulk(name);
    return;
  }
  std::optional<int> category = AclCategoryIndex(args[2]);
  if (!category) {
    ReplyError(ctx, Err("Unknown category '" + std::string(args[2]) + "'"));
    return;
  }
  const AclCommandIds& ids = Acl(ctx).ids();
  std::vector<std::string> names;
  for (size_t id = 0; id < ids.size(); ++id) {
    const AclCommandIds::Entry& e = ids.entry(id);
    if (e.categories & (1u << *category)) names.push_back(FullName(*e.spec, e.sub));
  }
  ReplyBulks(ctx, names);
}

void GenPassSub(CommandContext& ctx, Args args) {
  if (ReplyIfMoreThanOneArgument(ctx, args)) return;
  int64_t bits = 256;
  if (args.size() == 3 && !ParseInt64(args[2], &bits)) {
    ReplyError(ctx, Err(std::string(resp::kNotInteger)));
    return;
  }
  if (bits <= 0 || bits > 4096) {
    ReplyError(ctx, Err("ACL GENPASS argument must be the number of bits for the output "
                        "password, a positive number up to 4096"));
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device random;  // the kernel's random numbers (getrandom / /dev/urandom)
  std::string password;
  for (int64_t i = 0; i < (bits + 3) / 4; ++i) password.push_back(kHex[random() & 15]);
  ctx.reply.Bulk(password);
}

// ACL DRYRUN user command [arg ...]: OK, or why the user could not run it.
void DryRunSub(CommandContext& ctx, Args args) {
  std::shared_ptr<const AclUser> user = Acl(ctx).Find(args[2]);
  if (user == nullptr) {
    ReplyError(ctx, Err("User '" + std::string(args[2]) + "' not found"));
    return;
  }
  const Args command = args.subspan(3);
  const CommandSpec* spec = ctx.server.commands->Find(command[0]);
  if (spec == nullptr) {
    ReplyError(ctx, Err("Command '" + std::string(command[0]) + "' not found"));
    return;
  }
  // As Redis's lookup: a container's unknown subcommand is an unknown command.
  const Subcommand* sub =
      HasSubcommand(*spec, command) ? LookupSubcommand(spec->subcommands, command[1]) : nullptr;
  if (HasSubcommand(*spec, command) && sub == nullptr) {
    ReplyError(ctx, Err("Command '" + std::string(command[0]) + "' not found"));
    return;
  }
  if (!ArityMatches(sub != nullptr ? sub->arity : spec->arity, command.size())) {
    ReplyError(ctx, Err(resp::WrongArity(FullName(*spec, sub))));
    return;
  }
  const AclVerdict verdict = CheckAcl(*user, Acl(ctx).ids(), *spec, sub, command);
  if (verdict.ok()) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Bulk(AclDeniedDryRunMessage(verdict, *spec, sub, command));
  }
}

void ReplyLogEntry(CommandContext& ctx, const AclLogEntry& entry) {
  ctx.reply.Map(7);
  ctx.reply.Bulk("count");
  ctx.reply.Int(entry.count);
  ctx.reply.Bulk("reason");
  ctx.reply.Bulk(entry.reason);
  ctx.reply.Bulk("context");
  ctx.reply.Bulk(entry.context);
  ctx.reply.Bulk("object");
  ctx.reply.Bulk(entry.object);
  ctx.reply.Bulk("username");
  ctx.reply.Bulk(entry.username);
  ctx.reply.Bulk("age-seconds");
  ctx.reply.Double(static_cast<double>(ctx.clock_ms() - entry.created_ms) / 1000);
  ctx.reply.Bulk("client-info");
  ctx.reply.Bulk(entry.client_info);
}

// ACL LOG [count | RESET]: the newest entries first.
void LogSub(CommandContext& ctx, Args args) {
  if (ReplyIfMoreThanOneArgument(ctx, args)) return;
  AclLog& log = Acl(ctx).log;
  int64_t count = 10;  // Redis's default
  if (args.size() == 3) {
    if (EqualsIgnoreCase(args[2], "reset")) {
      log.Reset();
      ctx.reply.Ok();
      return;
    }
    if (!ParseInt64(args[2], &count)) {
      ReplyError(ctx, Err(std::string(resp::kNotInteger)));
      return;
    }
  }
  // A count below 1 shows nothing, as Redis.
  const size_t shown = std::min(static_cast<size_t>(std::max<int64_t>(count, 0)),
                                log.entries().size());
  ctx.reply.Array(static_cast<int64_t>(shown));
  for (size_t i = 0; i < shown; ++i) ReplyLogEntry(ctx, log.entries()[i]);
}

// The `aclfile` path; without one, nullptr after Redis's error reply.
const std::string* AclFileOrReply(CommandContext& ctx) {
  const std::string& path = ctx.server.config->aclfile;
  if (!path.empty()) return &path;
  ReplyError(ctx,
             Err("This Redis instance is not configured to use an ACL file. You may want to "
                 "specify users via the ACL SETUSER command and then issue a CONFIG REWRITE "
                 "(assuming you have a Redis configuration file set) in order to store users "
                 "in the Redis configuration."));
  return nullptr;
}

// ACL LOAD: the file's users replace them all, or nothing changes. As Redis 7.0 every user but
// the default one is new afterwards, so each connection authenticated as another user is
// closed, changed or not (this one after its reply).
void AclLoadSub(CommandContext& ctx, Args) {
  const std::string* path = AclFileOrReply(ctx);
  if (path == nullptr) return;
  StatusOr<std::vector<AclUser>> users = LoadAclFile(*path, Acl(ctx).ids());
  if (ReplyIfError(ctx, users.status())) return;
  Acl(ctx).ReplaceUsers(std::move(users).value());
  for (const Client* client : ctx.server.actions->ListClients()) {
    if (client->user != Acl(ctx).default_user()) ctx.server.actions->KillClient(client->id);
  }
  ctx.reply.Ok();
}

// ACL SAVE: every user as ACL LIST shows it, replacing the file atomically.
void SaveSub(CommandContext& ctx, Args) {
  const std::string* path = AclFileOrReply(ctx);
  if (path == nullptr) return;
  std::string text;
  for (const std::string& line : AclListLines(Acl(ctx))) text += line + "\n";
  if (Status saved = config_internal::ReplaceFileAtomically(*path, text); !saved.ok()) {
    spdlog::warn("Saving the ACL file {} for ACL SAVE: {}", *path, saved.message());
    ReplyError(ctx, Err("There was an error trying to save the ACLs. Please check the server "
                        "logs for more information"));
    return;
  }
  ctx.reply.Ok();
}

void AclHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "CAT [<category>]",
      "    List all commands that belong to <category>, or all command categories",
      "    when no category is specified.",
      "DELUSER <username> [<username> ...]",
      "    Delete a list of users.",
      "DRYRUN <username> <command> [<arg> ...]",
      "    Returns whether the user can execute the given command without executing the "
      "command.",
      "GETUSER <username>",
      "    Get the user's details.",
      "GENPASS [<bits>]",
      "    Generate a secure 256-bit user password. The optional `bits` argument can",
      "    be used to specify a different size.",
      "LIST",
      "    Show users details in config file format.",
      "LOAD",
      "    Reload users from the ACL file.",
      "LOG [<count> | RESET]",
      "    Show the ACL log entries.",
      "SAVE",
      "    Save the current config to the ACL file.",
      "SETUSER <username> <attribute> [<attribute> ...]",
      "    Create or modify a user with the specified attributes.",
      "USERS",
      "    List all the registered usernames.",
      "WHOAMI",
      "    Return the current connection username.",
  };
  ReplyHelp(ctx, "ACL", kLines);
}

// Administrative (@admin @dangerous) as Redis's, but for WHOAMI, CAT, GENPASS and HELP.
constexpr Subcommand kAclSubcommands[] = {
    {"cat", -2, CatSub},
    {"deluser", -3, DelUserSub, true},
    {"dryrun", -4, DryRunSub, true},
    {"genpass", -2, GenPassSub},
    {"getuser", 3, GetUserSub, true},
    {"list", 2, AclListSub, true},
    {"load", 2, AclLoadSub, true},
    {"log", -2, LogSub, true},
    {"save", 2, SaveSub, true},
    {"setuser", -3, SetUserSub, true},
    {"users", 2, UsersSub, true},
    {"whoami", 2, WhoAmISub},
    {"help", 2, AclHelpSub},
};

void AclCommand(CommandContext& ctx, Args args) { DispatchSubcommand(ctx, args, kAclSubcommands); }

}  // namespace

void RegisterAclCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register({"acl", -2, F::kNoScript | F::kLoading | F::kStale, 0, 0, 0, AclCommand, "server",
                  kAclSubcommands});
}

}  // namespace sluice::server
