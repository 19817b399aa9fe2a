#pragma once

// What COMMAND DOCS tells of every command and subcommand: a one-sentence summary, the Redis
// version that introduced it (sluice's own: 1.0.0) and its arguments, from which redis-cli
// builds its hints, `help <command>` and the completion of subcommands. The tables give each
// one's syntax as a line (server/command_syntax.h); it is parsed once, on first use.

#include <span>
#include <string_view>
#include <vector>

#include "server/command_syntax.h"

namespace sluice::server {

struct CommandDocEntry {
  std::string_view name;     // full name, lower case: "set", "client|kill"
  std::string_view since;    // Redis's version that introduced it
  std::string_view summary;  // one sentence, sluice's words
  std::string_view syntax;   // ParseCommandSyntax's notation; empty: no arguments
};

std::span<const CommandDocEntry> DataCommandDocs();     // command_docs_data.cc
std::span<const CommandDocEntry> ServerCommandDocs();   // command_docs_server.cc
std::span<const CommandDocEntry> LimiterCommandDocs();  // command_docs_limiters.cc

struct CommandDoc {
  std::string_view summary;
  std::string_view since;
  std::vector<DocArg> arguments;
};

// The docs of a command or subcommand by its full name ("set", "client|kill"), or nullptr.
const CommandDoc* FindCommandDoc(std::string_view full_name);

}  // namespace sluice::server
