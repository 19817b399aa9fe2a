// MODULE as a Redis 7.0 with no modules answers it: LIST is empty, so a client that probes for
// a module (RediSearch, RedisJSON...) learns it is not there; LOAD, LOADEX and UNLOAD get the
// refusal of Redis's default `enable-module-command no` (sluice loads no modules at all).

#include "server/commands/commands.h"
#include "server/commands/helpers.h"

namespace sluice::server {
namespace {

void ModuleListSub(CommandContext& ctx, Args) { ctx.reply.Array(0); }

void NotAllowedSub(CommandContext& ctx, Args) {
  ReplyError(ctx, Err("MODULE command not allowed. If the enable-module-command option is set to "
                      "\"local\", you can run it from a local connection, otherwise you need to "
                      "set this option in the configuration file, and then restart the server."));
}

void ModuleHelpSub(CommandContext& ctx, Args) {
  static constexpr std::string_view kLines[] = {
      "LIST",
      "    Return a list of loaded modules.",
      "LOAD <path> [<arg> ...]",
      "    Load a module library from <path>, passing to it any optional arguments.",
      "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
      "    Load a module library from <path>, while passing it module configurations and "
      "optional arguments.",
      "UNLOAD <name>",
      "    Unload a module."};
  ReplyHelp(ctx, "MODULE", kLines);
}

constexpr Subcommand kModuleSubcommands[] = {
    {"help", 2, ModuleHelpSub},
    WithTips({"list", 2, ModuleListSub, true}, kInAnyOrder),
    {"load", -3, NotAllowedSub, true},
    {"loadex", -3, NotAllowedSub, true},
    {"unload", 3, NotAllowedSub, true},
};

void ModuleCommand(CommandContext& ctx, Args args) {
  DispatchSubcommand(ctx, args, kModuleSubcommands);
}

}  // namespace

void RegisterModuleCommands(CommandTable& table) {
  table.Register({"module", -2, CommandFlags::kNone, 0, 0, 0, ModuleCommand, "server",
                  kModuleSubcommands});
}

}  // namespace sluice::server
