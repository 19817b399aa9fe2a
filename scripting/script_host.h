#pragma once

// What the Lua engine needs from the server, and nothing more: the engine never includes
// server headers. The server implements this (server/script_bridge.h).

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "resp/reply_builder.h"
#include "resp/value.h"

namespace sluice::scripting {

// redis.LOG_* values, as Redis's LL_* levels.
enum class LogLevel : int { kDebug = 0, kVerbose = 1, kNotice = 2, kWarning = 3 };

class ScriptHost {
 public:
  virtual ~ScriptHost() = default;

  // redis.call / redis.pcall: runs `args` (args[0] is the command name) with every check a
  // network client gets plus the script gates, and returns the reply tree. `protocol` is the
  // script's (redis.setresp); the engine converts the tree to Lua itself.
  virtual resp::Value Call(std::span<const std::string_view> args,
                           resp::ProtocolVersion protocol) = 0;

  // The running script is past lua-time-limit: called on the first instruction-hook tick past
  // it (`first`) and on every tick after, so the server can serve other clients (with -BUSY).
  // SCRIPT KILL, handled in there, calls ScriptEngine::Kill().
  virtual void WhileBusy(int64_t elapsed_ms, bool first) = 0;

  // redis.acl_check_cmd: whether the script's caller may run `args` (its user's rules for the
  // command, its keys and channels); nullopt when `args` name no command (or a container's
  // unknown subcommand).
  virtual std::optional<bool> AclAllows(std::span<const std::string_view> args) = 0;

  // redis.log.
  virtual void Log(LogLevel level, std::string_view message) = 0;
};

}  // namespace sluice::scripting
