#include "scripting/lua_convert.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <algorithm>
#include <string>
#include <string_view>

#include "resp/error_messages.h"
#include "resp/number_format.h"
#include "scripting/lua_support.h"

namespace sluice::scripting {
namespace {

using resp::Value;
using Kind = resp::Value::Kind;

// A script may return a table that contains itself; Redis converts until the Lua stack runs
// out (and {t, t} would never finish). These bounds keep the conversion finite: past the depth
// a nested value becomes Redis's stack-limit error, past the count the whole reply does.
constexpr int kMaxResultDepth = 1000;
constexpr size_t kMaxResultValues = size_t{1} << 22;

// No C++ object with a destructor lives in these frames: Lua may longjmp out of any of them.

void PushStringField(lua_State* L, const char* key, std::string_view value) {
  lua_pushlstring(L, value.data(), value.size());
  lua_setfield(L, -2, key);
}

void PushValue(lua_State* L, const Value& v, bool resp3) {
  luaL_checkstack(L, 4, "reply nested too deeply");
  switch (v.kind) {
    case Kind::kInt:
      lua_pushnumber(L, static_cast<lua_Number>(v.integer));
      return;
    case Kind::kBulk:
      lua_pushlstring(L, v.str.data(), v.str.size());
      return;
    case Kind::kNull:
    case Kind::kNullArray:
      if (resp3) {
        lua_pushnil(L);
      } else {
        lua_pushboolean(L, 0);
      }
      return;
    case Kind::kSimple:
      lua_createtable(L, 0, 1);
      PushStringField(L, "ok", v.str);
      return;
    case Kind::kError:
      PushErrorReply(L, v.str, /*from_command=*/true);
      return;
    case Kind::kDouble:
      if (resp3) {
        lua_createtable(L, 0, 1);
        lua_pushnumber(L, v.dbl);
        lua_setfield(L, -2, "double");
      } else {
        char buf[resp::kNumberBufferSize];
        std::string_view text = resp::FormatDouble(v.dbl, buf);
        lua_pushlstring(L, text.data(), text.size());
      }
      return;
    case Kind::kBool:
      if (resp3) {
        lua_pushboolean(L, v.boolean());
      } else {
        lua_pushnumber(L, v.boolean() ? 1 : 0);
      }
      return;
    case Kind::kVerbatim:
      if (resp3) {
        lua_createtable(L, 0, 1);
        lua_createtable(L, 0, 2);
        PushStringField(L, "string", v.str);
        PushStringField(L, "format", "txt");
        lua_setfield(L, -2, "verbatim_string");
      } else {
        lua_pushlstring(L, v.str.data(), v.str.size());
      }
      return;
    case Kind::kMap:
      if (resp3) {
        lua_createtable(L, 0, 1);
        lua_createtable(L, 0, static_cast<int>(v.elements.size() / 2));
        for (size_t i = 0; i + 1 < v.elements.size(); i += 2) {
          PushValue(L, v.elements[i], resp3);
          PushValue(L, v.elements[i + 1], resp3);
          lua_settable(L, -3);
        }
        lua_setfield(L, -2, "map");
        return;
      }
      break;  // RESP2: a flat array
    case Kind::kSet:
      if (resp3) {
        lua_createtable(L, 0, 1);
        lua_createtable(L, 0, static_cast<int>(v.elements.size()));
        for (const Value& element : v.elements) {
          PushValue(L, element, resp3);
          lua_pushboolean(L, 1);
          lua_settable(L, -3);
        }
        lua_setfield(L, -2, "set");
        return;
      }
      break;  // RESP2: an array
    case Kind::kArray:
      break;
  }
  lua_createtable(L, static_cast<int>(v.elements.size()), 0);
  for (size_t i = 0; i < v.elements.size(); ++i) {
    PushValue(L, v.elements[i], resp3);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

struct ResultReader {
  lua_State* L;
  bool resp3;
  std::vector<ScriptError>* errors;
  size_t values = 0;
  bool too_many = false;

  // The field `name` of the table at `table` (default: the top) if its type is `type`: left
  // pushed, true.
  bool Field(const char* name, int type, int table = -1) {
    if (table < 0) table = lua_gettop(L) + table + 1;
    lua_pushstring(L, name);
    lua_rawget(L, table);
    if (lua_type(L, -1) == type) return true;
    lua_pop(L, 1);
    return false;
  }

  void Read(Value* out, int depth) {
    if (++values > kMaxResultValues) {
      too_many = true;
      lua_pop(L, 1);
      return;
    }
    if (depth > kMaxResultDepth || !lua_checkstack(L, 4)) {
      out->kind = Kind::kError;
      out->str = "ERR reached lua stack limit";
      errors->push_back({out->str, false});
      lua_pop(L, 1);
      return;
    }
    switch (lua_type(L, -1)) {
      case LUA_TSTRING: {
        size_t len = 0;
        const char* s = lua_tolstring(L, -1, &len);
        out->kind = Kind::kBulk;
        out->str.assign(s, len);
        break;
      }
      case LUA_TBOOLEAN:
        if (resp3) {
          out->kind = Kind::kBool;
          out->integer = lua_toboolean(L, -1) ? 1 : 0;
        } else if (lua_toboolean(L, -1)) {
          out->kind = Kind::kInt;
          out->integer = 1;
        } else {
          out->kind = Kind::kNull;
        }
        break;
      case LUA_TNUMBER:
        out->kind = Kind::kInt;
        out->integer = LuaNumberToInteger(lua_tonumber(L, -1));
        break;
      case LUA_TTABLE:
        ReadTable(out, depth);
        break;
      default:
        out->kind = Kind::kNull;
        break;
    }
    lua_pop(L, 1);
  }

  // Whether every key of the table on top is a number, and how many there are. Only a table
  // with a string key can be one of the field tables (err, ok, map...), so an array, what
  // scripts return most, skips their seven lookups. lua_next with keys it gave neither
  // allocates nor raises.
  bool OnlyNumberKeys(size_t* count) {
    *count = 0;
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      lua_pop(L, 1);  // the value
      if (lua_type(L, -1) != LUA_TNUMBER) {
        lua_pop(L, 1);
        return false;
      }
      ++*count;
    }
    return true;
  }

  // The table stays on the stack; Read pops it.
  void ReadTable(Value* out, int depth) {
    size_t count = 0;
    if (OnlyNumberKeys(&count)) {
      out->elements.reserve(count);  // at least what the loop below reads
      ReadArray(out, depth);
      return;
    }
    size_t len = 0;
    if (Field("err", LUA_TSTRING)) {
      const char* s = lua_tolstring(L, -1, &len);
      len = resp::CString({s, len}).size();  // Redis copies it as a C string
      // Redis formats the reply as "-<err>" and trims CR and LF from its end
      // (addReplyErrorFormatEx); the ones left inside become spaces on the way out.
      while (len > 0 && (s[len - 1] == '\r' || s[len - 1] == '\n')) --len;
      out->kind = Kind::kError;
      out->str.assign(s, len);
      lua_pop(L, 1);
      errors->push_back({out->str, IsCommandErrorTable(L)});
      return;
    }
    if (Field("ok", LUA_TSTRING)) {
      const char* s = lua_tolstring(L, -1, &len);
      out->kind = Kind::kSimple;
      out->str.assign(resp::CString({s, len}));  // Redis copies it as a C string
      lua_pop(L, 1);
      return;
    }
    if (Field("double", LUA_TNUMBER)) {
      out->kind = Kind::kDouble;
      out->dbl = lua_tonumber(L, -1);
      lua_pop(L, 1);
      return;
    }
    if (Field("big_number", LUA_TSTRING)) {
      // No big-number reply type in the builder: RESP2's form, a bulk string. Redis turns CR
      // and LF into spaces (a RESP3 big number is one line).
      const char* s = lua_tolstring(L, -1, &len);
      out->kind = Kind::kBulk;
      out->str.assign(s, len);
      std::replace_if(
          out->str.begin(), out->str.end(), [](char c) { return c == '\r' || c == '\n'; }, ' ');
      lua_pop(L, 1);
      return;
    }
    if (Field("verbatim_string", LUA_TTABLE)) {
      bool done = false;
      if (Field("format", LUA_TSTRING)) {
        if (Field("string", LUA_TSTRING, -2)) {
          const char* s = lua_tolstring(L, -1, &len);
          out->kind = Kind::kVerbatim;
          out->str.assign(s, len);
          done = true;
          lua_pop(L, 1);
        }
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      if (done) return;
    }
    if (Field("map", LUA_TTABLE)) {
      out->kind = Kind::kMap;
      lua_pushnil(L);
      while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);  // a copy of the key to convert; the original drives lua_next
        out->elements.emplace_back();
        Read(&out->elements.back(), depth + 1);  // the key
        out->elements.emplace_back();
        Read(&out->elements.back(), depth + 1);  // the value
      }
      lua_pop(L, 1);
      return;
    }
    if (Field("set", LUA_TTABLE)) {
      out->kind = Kind::kSet;
      lua_pushnil(L);
      while (lua_next(L, -2)) {
        lua_pop(L, 1);  // the value is `true`; the key is the member
        lua_pushvalue(L, -1);
        out->elements.emplace_back();
        Read(&out->elements.back(), depth + 1);
      }
      lua_pop(L, 1);
      return;
    }
    ReadArray(out, depth);
  }

  // Redis's array: t[1], t[2]... up to the first nil.
  void ReadArray(Value* out, int depth) {
    out->kind = Kind::kArray;
    for (int j = 1;; ++j) {
      lua_rawgeti(L, -1, j);
      if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        break;
      }
      out->elements.emplace_back();
      Read(&out->elements.back(), depth + 1);
    }
  }
};

}  // namespace

void PushReply(lua_State* L, const resp::Value& reply, resp::ProtocolVersion protocol) {
  PushValue(L, reply, protocol == resp::ProtocolVersion::kResp3);
}

void ReadScriptResult(lua_State* L, resp::ProtocolVersion protocol, resp::Value* out,
                      std::vector<ScriptError>* errors) {
  const size_t errors_before = errors->size();
  ResultReader reader{L, protocol == resp::ProtocolVersion::kResp3, errors};
  reader.Read(out, 0);
  if (reader.too_many) {
    *out = Value::Error("ERR reply of the script has more than " +
                        std::to_string(kMaxResultValues) + " values");
    errors->resize(errors_before);
    errors->push_back({out->str, false});
  }
}

bool IsCommandErrorTable(lua_State* L) {
  if (!lua_istable(L, -1)) return false;
  lua_getfield(L, -1, "ignore_error_stats_update");
  const bool repeats = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  return repeats;
}

}  // namespace sluice::scripting
