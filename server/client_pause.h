#pragma once

// CLIENT PAUSE (Redis 7.0): while a pause is in force, the requests it covers are held, not
// run, until it ends (CLIENT UNPAUSE, or its end time on the server clock, DEBUG CLOCK's
// included). They stay in their sessions' input, in order, and run when it ends.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "server/command_table.h"

namespace sluice::server {

struct Client;

enum class PauseMode : uint8_t { kNone, kWrite, kAll };

struct ClientPause {
  PauseMode mode = PauseMode::kNone;
  int64_t end_ms = 0;  // on the server clock
  uint64_t held = 0;   // clients held so far: they resume in that order, as in Redis

  // As Redis 7.0's pauseClients: a pause during another keeps the stricter mode and the
  // later end.
  void Extend(PauseMode new_mode, int64_t new_end_ms) {
    mode = std::max(mode, new_mode);
    end_ms = std::max(end_ms, new_end_ms);
  }
  bool InForce(int64_t now_ms) const { return mode != PauseMode::kNone && now_ms < end_ms; }
  // Held requests with PauseMode::kNone cost the session this one branch per request.
  bool Set() const { return mode != PauseMode::kNone; }
};

// Whether a script command's script or function declares writes (a shebang's or FUNCTION's
// flags, without no-writes), as Redis's evalGetCommandFlags and fcallGetCommandFlags read
// them; nullopt when it declares nothing (an EVAL in compatibility mode, an unknown script or
// function), and then the command's own flags decide.
using ScriptDeclaresWrites = std::function<std::optional<bool>(const CommandSpec&, Args)>;

// Whether the pause holds this request of `client`: every command under ALL but DEBUG (a
// test tool, so that DEBUG CLOCK can end a pause on a frozen clock); under WRITE,
// what may change data or reach a replica in Redis (write commands and subcommands, EVAL,
// FCALL, PUBLISH, PFCOUNT...; a script or function by what it declares) and an EXEC whose
// transaction queued one. Unknown commands and wrong arities are not held: they fail at
// once, as in Redis. `spec` is args[0]'s table entry and `named` its subcommand, found by
// the caller (spec nullptr: unknown, or no arguments).
bool PauseHolds(PauseMode mode, const CommandTable& commands, const Client& client,
                const CommandSpec* spec, RequestSubcommand named, Args args,
                const ScriptDeclaresWrites& script_writes);

// A session's request while a pause of `mode` is in force: whether the pause holds it; a held
// one is named in CLIENT LIST's cmd= as the dispatcher names a request (NoteLastCommand). The
// command and its subcommand are looked up once, for both.
bool HoldRequest(PauseMode mode, const CommandTable& commands, Client& client, Args args,
                 const ScriptDeclaresWrites& script_writes);

}  // namespace sluice::server
