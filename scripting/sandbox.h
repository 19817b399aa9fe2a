#pragma once

// Internal to scripting/: the Lua environment Redis 7.0 gives scripts.
//
// Globals are Redis's allow list (base functions without dofile, loadfile, print, getfenv,
// setfenv, newproxy; the string, table, math, coroutine, cjson, struct, cmsgpack, bit and
// redis tables). Stock Lua 5.1 has no read-only tables (Redis patches its Lua for them), so
// _G and each library table are empty proxies: reads go through to the real table, writes
// raise "Attempt to modify a readonly table", reading a missing global raises "Script
// attempted to access nonexistent global variable 'x'". rawset, rawget, next, pairs,
// getmetatable, setmetatable and table.insert see through proxies and refuse to write them;
// load and loadstring refuse bytecode with the parser's own error. Scripts never reach the
// real tables.

#include <cstddef>

#include "scripting/script_api.h"

struct lua_State;

namespace sluice::scripting {

// Builds the environment in a fresh lua_State. Raises on allocation failure: call it inside
// lua_cpcall.
void InstallSandbox(lua_State* L, ScriptApi api);

// FUNCTION LOAD's environment, Redis's library API: while a library's code runs, globals read
// through to a table holding only `redis` = {register_function, log, LOG_*, REDIS_VERSION,
// REDIS_VERSION_NUM}; any other name raises "Script attempted to access nonexistent global
// variable 'x'", and writes stay refused. Built once, after InstallSandbox. Raises on
// allocation failure.
void InstallLibraryEnvironment(lua_State* L, int (*register_function)(lua_State*));
// Switches the globals to the library API (`loading`) or back to the scripts' environment.
void UseLibraryEnvironment(lua_State* L, bool loading);

// Sets the global `name` (KEYS, ARGV) to the value on top of the stack, and pops it. Raises on
// allocation failure.
void SetScriptGlobal(lua_State* L, const char* name);

// The parser's error for a bytecode chunk named `chunkname`, as Redis's Lua (which never loads
// bytecode) reports it: "<chunk id>:1: unexpected symbol near 'char(27)'". Raises on
// allocation failure.
void PushBytecodeError(lua_State* L, const char* chunkname, size_t chunkname_len);

}  // namespace sluice::scripting
