#pragma once

// Internal to scripting/: Redis 7.0's conversions between command replies and Lua values
// (script_lua.c), on value trees instead of RESP text.
//
// Reply -> Lua (what redis.call returns): integer -> number, bulk -> string, nil -> false
// (RESP3: nil), array -> table, status -> {ok=s}, error -> {err=s}; with redis.setresp(3):
// map -> {map={k=v}}, set -> {set={k=true}}, double -> {double=d}, boolean -> boolean,
// verbatim -> {verbatim_string={format=, string=}}; in RESP2 those arrive as RESP2 types.
//
// Lua -> reply (what a script returns): number -> integer (truncated), string -> bulk,
// true -> 1 (RESP3 script: boolean), false -> nil, table -> array up to the first nil, or the
// error / status / double / map / set it describes by an err / ok / double / map / set field.

#include <string>
#include <vector>

#include "resp/reply_builder.h"
#include "resp/value.h"

struct lua_State;

namespace sluice::scripting {

// Pushes `reply` converted to Lua. Raises on allocation failure: no caller frame may hold a
// C++ object with a destructor.
void PushReply(lua_State* L, const resp::Value& reply, resp::ProtocolVersion protocol);

// An error reply in a script's result, or the error it raised: for the server's error
// statistics (INFO errorstats), which count each, as Redis's.
struct ScriptError {
  std::string line;  // without the leading '-'
  // The error reply of a redis.call or redis.pcall command (the error table's
  // ignore_error_stats_update), which Redis counted when that command answered it.
  bool repeats_command_error = false;
};

// Converts the value on top of the stack (and pops it) into *out, adding the error replies in
// it to *errors. `protocol` is the script's (redis.setresp), which decides how booleans are
// returned. Raises on allocation failure.
void ReadScriptResult(lua_State* L, resp::ProtocolVersion protocol, resp::Value* out,
                      std::vector<ScriptError>* errors);

// Whether the error table on top of the stack was made from a command's error reply.
bool IsCommandErrorTable(lua_State* L);

}  // namespace sluice::scripting
