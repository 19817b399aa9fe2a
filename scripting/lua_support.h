#pragma once

// Internal to scripting/: small tools shared by the Lua-facing C functions.
//
// Lua 5.1 raises errors with longjmp, which skips C++ destructors. So C functions called
// from Lua keep their C++ objects in an inner scope that ends before any Lua call that may
// raise. Where Lua values must be built from C++ data, either that data lives outside the
// function's frame (redis.call's reply, in the RunState) or ProtectedPush builds them in a
// protected call and hands back the value or the error to raise afterwards.

#include <cstdint>
#include <string>
#include <string_view>

struct lua_State;
struct lua_Debug;

namespace sluice::scripting {

// Runs fn(L, ud) in protected mode; fn pushes exactly one value. Returns true with that value
// on top of the stack, or false with the error object on top (raise it once C++ objects are
// gone). Needs two free stack slots.
bool ProtectedPush(lua_State* L, void (*fn)(lua_State*, void*), void* ud);

// Makes the function ProtectedPush calls; once per lua_State at set-up. Raises on allocation
// failure.
void InitProtectedPush(lua_State* L);

// Stores `fn` as a Lua function once, at set-up, in the registry under the address `key`
// (raises on allocation failure). Pushing it back allocates nothing, where lua_cpcall and
// lua_pushcfunction make a new closure, garbage for the collector, on every call.
void StoreFunction(lua_State* L, const char* key, int (*fn)(lua_State*));
void PushStoredFunction(lua_State* L, const char* key);

// Pushes {err = <line>} (a Redis error table) for an error line "CODE message" as Redis
// builds it (luaPushErrorBuff): a line without a space gets the ERR code ("x" -> "ERR x"), CR
// and LF around the message are trimmed. With `from_command`, also the
// ignore_error_stats_update = true field Redis adds to errors of commands and script gates.
// Raises on allocation failure: call it only where a longjmp is safe.
void PushErrorReply(lua_State* L, std::string_view line, bool from_command);

// Fails the running code with the error reply `line`, and makes `hook` fail it again on
// every line from now on, so that no pcall in the code can swallow the error. For a hook
// that stops a script (SCRIPT KILL, FUNCTION LOAD's timeout); raises, never returns.
int RaiseOnEveryLine(lua_State* L, void (*hook)(lua_State*, lua_Debug*), std::string_view line);

// A Lua number as redis.call passes it: "%.17g", as Redis formats it (3 -> "3", 0.1 ->
// "0.10000000000000001", 1/0 -> "inf").
std::string FormatLuaNumber(double n);

// (long long)n as Redis converts a returned number on x86-64: truncation toward zero, and
// INT64_MIN for NaN, infinities and values out of range.
int64_t LuaNumberToInteger(double n);

// Lua 5.1's luaO_chunkid: how a chunk name appears in messages ([string "..."], file name,
// or the name without its leading '=').
std::string ChunkId(std::string_view source);

}  // namespace sluice::scripting
