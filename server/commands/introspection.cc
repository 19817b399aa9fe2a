// COMMAND (COUNT, LIST, INFO, DOCS) and CONFIG (GET, SET, RESETSTAT, REWRITE).

#include <spdlog/spdlog.h>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

struct FlagName {
  CommandFlags flag;
  std::string_view name;
};

constexpr FlagName kFlagNames[] = {
    {CommandFlags::kWrite, "write"},       {CommandFlags::kReadOnly, "readonly"},
    {CommandFlags::kAdmin, "admin"},       {CommandFlags::kNoScript, "noscript"},
    {CommandFlags::kBlocking, "blocking"}, {CommandFlags::kLoading, "loading"},
    {CommandFlags::kStale, "stale"},       {CommandFlags::kNoAuth, "no_auth"},
    {CommandFlags::kAllowBusy, "allow_busy"}, {CommandFlags::kFast, "fast"},
};

// Redis 7's key specs, derived from first/last/step: enough for clients' key extraction.
void ReplyKeySpecs(CommandContext& ctx, const CommandSpec& spec) {
  if (spec.first_key == 0) {
    ctx.reply.Array(0);
    return;
  }
  ctx.reply.Array(1);
  ctx.reply.Map(3);
  ctx.reply.Bulk("flags");
  ctx.reply.Set(1);
  ctx.reply.Simple(HasFlag(spec.flags, CommandFlags::kWrite) ? "RW" : "RO");
  ctx.reply.Bulk("begin_search");
  ctx.reply.Map(2);
  ctx.reply.Bulk("type");
  ctx.reply.Bulk("index");
  ctx.reply.Bulk("spec");
  ctx.reply.Map(1);
  ctx.reply.Bulk("index");
  ctx.reply.Int(spec.first_key);
  ctx.reply.Bulk("find_keys");
  ctx.reply.Map(2);
  ctx.reply.Bulk("type");
  ctx.reply.Bulk("range");
  ctx.reply.Bulk("spec");
  ctx.reply.Map(3);
  ctx.reply.Bulk("lastkey");
  ctx.reply.Int(spec.last_key < 0 ? spec.last_key : spec.last_key - spec.first_key);
  ctx.reply.Bulk("keystep");
  ctx.reply.Int(spec.key_step);
  ctx.reply.Bulk("limit");
  ctx.reply.Int(0);
}

void ReplyCommandInfo(CommandContext& ctx, const CommandSpec& spec) {
  ctx.reply.Array(10);
  ctx.reply.Bulk(spec.name);
  ctx.reply.Int(spec.arity);
  int flag_count = 0;
  for (const FlagName& f : kFlagNames) flag_count += HasFlag(spec.flags, f.flag) ? 1 : 0;
  ctx.reply.Set(flag_count);
  for (const FlagName& f : kFlagNames) {
    if (HasFlag(spec.flags, f.flag)) ctx.reply.Simple(f.name);
  }
  ctx.reply.Int(spec.first_key);
  ctx.reply.Int(spec.last_key);
  ctx.reply.Int(spec.key_step);
  ctx.reply.Set(0);    // ACL categories
  ctx.reply.Set(0);    // tips
  ReplyKeySpecs(ctx, spec);
  ctx.reply.Array(0);  // subcommands
}

void ReplyCommandDocs(CommandContext& ctx, const CommandSpec& spec) {
  ctx.reply.Bulk(spec.name);
  ctx.reply.Map(3);
  ctx.reply.Bulk("summary");
  ctx.reply.Bulk(spec.summary);
  ctx.reply.Bulk("since");
  ctx.reply.Bulk("1.0.0");
  ctx.reply.Bulk("group");
  ctx.reply.Bulk(spec.group);
}

void CommandCommand(CommandContext& ctx, Args args) {
  const auto& all = ctx.server.commands->All();
  if (args.size() == 1) {
    ctx.reply.Array(static_cast<int64_t>(all.size()));
    for (const CommandSpec* spec : all) ReplyCommandInfo(ctx, *spec);
    return;
  }
  std::string_view sub = args[1];
  if (EqualsIgnoreCase(sub, "COUNT") && args.size() == 2) {
    ctx.reply.Int(static_cast<int64_t>(all.size()));
  } else if (EqualsIgnoreCase(sub, "LIST") && args.size() == 2) {
    ctx.reply.Array(static_cast<int64_t>(all.size()));
    for (const CommandSpec* spec : all) ctx.reply.Bulk(spec->name);
  } else if (EqualsIgnoreCase(sub, "INFO")) {
    if (args.size() == 2) {
      ctx.reply.Array(static_cast<int64_t>(all.size()));
      for (const CommandSpec* spec : all) ReplyCommandInfo(ctx, *spec);
      return;
    }
    ctx.reply.Array(static_cast<int64_t>(args.size() - 2));
    for (size_t i = 2; i < args.size(); ++i) {
      const CommandSpec* spec = ctx.server.commands->Find(args[i]);
      if (spec) {
        ReplyCommandInfo(ctx, *spec);
      } else {
        ctx.reply.NullArray();
      }
    }
  } else if (EqualsIgnoreCase(sub, "DOCS")) {
    std::vector<const CommandSpec*> wanted;
    if (args.size() == 2) {
      wanted = all;
    } else {
      for (size_t i = 2; i < args.size(); ++i) {
        if (const CommandSpec* spec = ctx.server.commands->Find(args[i])) wanted.push_back(spec);
      }
    }
    ctx.reply.Map(static_cast<int64_t>(wanted.size()));
    for (const CommandSpec* spec : wanted) ReplyCommandDocs(ctx, *spec);
  } else {
    ReplyError(ctx, Err(resp::SubcommandSyntaxError(sub, args[0])));
  }
}

void ConfigGetSub(CommandContext& ctx, Args args) {
  auto pairs = ConfigGet(*ctx.server.config, args.subspan(2));
  ctx.reply.Map(static_cast<int64_t>(pairs.size()));
  for (const auto& [name, value] : pairs) {
    ctx.reply.Bulk(name);
    ctx.reply.Bulk(value);
  }
}

void ConfigSetSub(CommandContext& ctx, Args args) {
  if (ReplyIfError(ctx, ConfigSet(ctx.server.config, args.subspan(2)))) return;
  ctx.server.actions->OnConfigChanged();
  for (size_t i = 2; i + 1 < args.size(); i += 2) {
    if (EqualsIgnoreCase(args[i], "requirepass")) continue;  // never log passwords
    spdlog::info("CONFIG SET {} {}", args[i], args[i + 1]);
  }
  ctx.reply.Ok();
}

void ConfigResetStatSub(CommandContext& ctx, Args) {
  ctx.server.stats = ServerStats{};
  ctx.reply.Ok();
}

void ConfigRewriteSub(CommandContext& ctx, Args) {
  ReplyError(ctx, Err("CONFIG REWRITE is not supported: edit the config file instead"));
}

constexpr Subcommand kConfigSubcommands[] = {
    {"get", -3, ConfigGetSub},
    {"set", -4, ConfigSetSub},
    {"resetstat", 2, ConfigResetStatSub},
    {"rewrite", 2, ConfigRewriteSub},
};

void ConfigCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kConfigSubcommands);
}

}  // namespace

void RegisterIntrospectionCommands(CommandTable& table) {
  using F = CommandFlags;
  table.Register({"command", -1, F::kLoading | F::kStale, 0, 0, 0, CommandCommand, "server"});
  table.Register({"config", -2, F::kAdmin | F::kNoScript | F::kLoading | F::kStale, 0, 0, 0,
                  ConfigCommand, "server"});
}

}  // namespace sluice::server
