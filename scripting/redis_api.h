#pragma once

// Internal to scripting/: the `redis` table (redis.call, redis.pcall, error_reply, ...), the
// error handler that turns script errors into Redis's error tables, Redis's pcall, and
// math.random / math.randomseed on Rand48. Texts are Redis 7.0's (script_lua.c, eval.c).

struct lua_State;

namespace sluice::scripting {

// Pushes the `redis` table; `eval_only` adds EVAL's breakpoint, debug and replicate_commands.
void PushRedisApi(lua_State* L, bool eval_only);

// The message handler of every script call (Redis's __redis__err__handler): makes the error
// a table {err=..., source=..., line=...}.
int ScriptErrorHandler(lua_State* L);

// Redis's replacement of the global pcall: an error table caught by pcall becomes its string.
int RedisPcall(lua_State* L);

// Replace math.random and math.randomseed in the math table on top of the stack.
void ReplaceMathRandom(lua_State* L);

}  // namespace sluice::scripting
