#pragma once

// A command's argument syntax, written as one line in the familiar notation and turned into the
// argument tree COMMAND DOCS shows (Redis 7.0's "arguments": name, type, key_spec_index, token,
// flags, nested arguments), from which redis-cli builds its hints and `help` lines.
//
// The notation, by example (SET):
//
//   key:key value [NX|XX]#condition [GET] [EX seconds:integer|...|KEEPTTL]#expiration
//
// - `name` is a string argument; `name:type` one of another type (integer, double, key,
//   pattern, unix-time; a name such as `ip:port` whose suffix is no type stays a name).
//   A key gets the next key spec index (0, 1 ... in order) unless `@N` gives it one
//   (`pattern:pattern@1`, SORT's BY).
// - A word without lower-case letters is a token: alone a pure token named after it in lower
//   case (`GET`), or with `#name` a pure token of another name (`CH#change`); `""` is the
//   empty token. A bare token followed by an argument or a group is that one's token
//   (`EX seconds:integer`, `FILTERBY (...)`); `(TOKEN)` keeps it a pure token of its own.
// - `[...]` is optional, `(...)` required. Alternatives split by `|` make a oneof, each one a
//   single argument; one alternative of several arguments makes a block. A group holding a
//   single argument and no `#name` is that argument (`[COUNT count:integer]`). A group's name
//   follows it as `#name`; without one it takes its token's in lower case. A block whose
//   arguments start with a token owns that token when it is named or two or more arguments
//   follow (`[LIMIT offset:integer count:integer]#offset_count`).
// - `...` after an argument or group: it may repeat (`key:key...`); `...+` repeats with its
//   token (`[PREFIX prefix...+]`).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::server {

enum class DocArgType : uint8_t {
  kString,
  kInteger,
  kDouble,
  kKey,
  kPattern,
  kUnixTime,
  kPureToken,
  kOneof,
  kBlock,
};

// Redis's name of the type ("unix-time", "pure-token"...).
std::string_view DocArgTypeName(DocArgType type);

struct DocArg {
  std::string name;
  DocArgType type = DocArgType::kString;
  int key_spec_index = -1;           // >= 0: the key spec it names (keys, SORT's patterns)
  std::optional<std::string> token;  // may be empty (MIGRATE's "")
  bool optional = false;
  bool multiple = false;
  bool multiple_token = false;    // repeats with its token
  std::vector<DocArg> arguments;  // kOneof, kBlock
};

// The arguments `syntax` describes, or an error naming where it went wrong.
StatusOr<std::vector<DocArg>> ParseCommandSyntax(std::string_view syntax);

}  // namespace sluice::server
