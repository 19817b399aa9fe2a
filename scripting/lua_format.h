#pragma once

// Internal to scripting/: string.format with the conversions limiter scripts use done here.
//
// Lua 5.1's string.format hands each conversion to sprintf; glibc prints "%.3f" of a token
// count or "%.0f" of a microsecond time through its multi-precision path, about 2,000
// instructions each (8% to 9% of the token-bucket and GCRA scripts' calls under callgrind).
// The replacement writes plain %d, %i, %s, %f and %.Nf itself, byte for byte as Lua's with
// glibc's sprintf (tests/unit/scripting/lua_format_test.cc holds it to the original on random
// formats and arguments), and runs Lua's own string.format, in the same call frame, for any
// format or argument it does not take: flags, widths, other conversions, numeric strings,
// errors. So error messages name 'format' as before.

struct lua_State;

namespace sluice::scripting {

// Replaces `format` in the string library table on top of the stack.
void ReplaceStringFormat(lua_State* L);

// The replacement itself; its first upvalue is Lua's string.format.
int FastStringFormat(lua_State* L);

}  // namespace sluice::scripting
