#include "server/config.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

#include "common/glob_match.h"
#include "resp/inline_args.h"
#include "server/arg_cursor.h"

namespace sluice::server {
namespace {

constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();    // Redis's INT_MAX bounds
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();  // LONG_MAX / LLONG_MAX
constexpr uint64_t kOneMb = 1ull << 20;
constexpr size_t kMaxBindAddresses = 16;  // Redis's CONFIG_BINDADDR_MAX
constexpr size_t kUnlimited = std::numeric_limits<size_t>::max();

// Why a value was refused, in the two voices it is reported in.
struct ValueError {
  std::string redis;   // CONFIG SET's detail: "argument couldn't be parsed into an integer"
  std::string expect;  // start-up's: "must be an integer between 0 and 65535"
};

using Values = std::span<const std::string>;
using Setter = std::function<std::optional<ValueError>(Config&, Values)>;
using Getter = std::function<std::string(const Config&)>;

enum DirectiveFlags : unsigned {
  kInFile = 1u << 0,     // accepted in the config file and on the command line
  kRuntime = 1u << 1,    // CONFIG SET may change it
  kMultiArg = 1u << 2,   // several words; a single non-empty one is split again (--bind "a b")
  kExactOnly = 1u << 3,  // CONFIG GET shows it only when asked by its exact name (an alias)
};

struct Directive {
  Directive(std::string_view name_in, unsigned flags_in, size_t min_args_in = 1,
            size_t max_args_in = 1)
      : name(name_in), flags(flags_in), min_args(min_args_in), max_args(max_args_in) {}

  std::string_view name;
  unsigned flags = 0;
  size_t min_args = 1;
  size_t max_args = 1;
  Setter set;                // null: read-only
  Getter get;                // null: not a CONFIG parameter (policy, rename-command)
  std::string_view same_as;  // for an alias: the directive it stands for
};

// --- Value parsers shared by the directive kinds -------------------------------------------

template <typename T>
Directive IntDirective(std::string_view name, unsigned flags, T Config::*field, int64_t lo,
                       int64_t hi) {
  std::string expect =
      "must be an integer between " + std::to_string(lo) + " and " + std::to_string(hi);
  Directive d{name, flags};
  d.set = [field, lo, hi, expect](Config& c, Values v) -> std::optional<ValueError> {
    int64_t value = 0;
    if (!ParseInt64(v[0], &value)) {
      return ValueError{"argument couldn't be parsed into an integer", expect};
    }
    if (value < lo || value > hi) {
      return ValueError{"argument must be between " + std::to_string(lo) + " and " +
                            std::to_string(hi) + " inclusive",
                        expect};
    }
    c.*field = static_cast<T>(value);
    return std::nullopt;
  };
  d.get = [field](const Config& c) { return std::to_string(c.*field); };
  return d;
}

Directive MemoryDirective(std::string_view name, unsigned flags, uint64_t Config::*field,
                          uint64_t lo, uint64_t hi) {
  std::string expect =
      "must be a memory value (bytes, or a number with k, kb, m, mb, g or gb) "
      "between " +
      std::to_string(lo) + " and " + std::to_string(hi) + " bytes";
  Directive d{name, flags};
  d.set = [field, lo, hi, expect](Config& c, Values v) -> std::optional<ValueError> {
    const std::optional<uint64_t> value = ParseMemory(v[0]);
    if (!value) return ValueError{"argument must be a memory value", expect};
    if (*value < lo || *value > hi) {
      return ValueError{"argument must be between " + std::to_string(lo) + " and " +
                            std::to_string(hi) + " inclusive",
                        expect};
    }
    c.*field = *value;
    return std::nullopt;
  };
  d.get = [field](const Config& c) { return std::to_string(c.*field); };
  return d;
}

Directive BoolDirective(std::string_view name, unsigned flags, bool Config::*field) {
  Directive d{name, flags};
  d.set = [field](Config& c, Values v) -> std::optional<ValueError> {
    if (EqualsIgnoreCase(v[0], "yes")) {
      c.*field = true;
    } else if (EqualsIgnoreCase(v[0], "no")) {
      c.*field = false;
    } else {
      return ValueError{"argument must be 'yes' or 'no'", "must be 'yes' or 'no'"};
    }
    return std::nullopt;
  };
  d.get = [field](const Config& c) { return std::string(c.*field ? "yes" : "no"); };
  return d;
}

Directive StringDirective(std::string_view name, unsigned flags, std::string Config::*field,
                          bool allow_empty) {
  Directive d{name, flags};
  d.set = [field, allow_empty](Config& c, Values v) -> std::optional<ValueError> {
    if (!allow_empty && v[0].empty()) {
      return ValueError{"argument can't be empty", "must not be empty"};
    }
    c.*field = v[0];
    return std::nullopt;
  };
  d.get = [field](const Config& c) { return c.*field; };
  return d;
}

// An enum directive: `choices` in Redis's order (its error lists them so), matched
// case-insensitively; CONFIG GET prints the name of the value the field holds.
template <typename T>
Directive EnumDirective(std::string_view name, unsigned flags, T Config::*field,
                        std::vector<std::pair<std::string_view, T>> choices) {
  std::string list;
  for (const auto& choice : choices) list += (list.empty() ? "" : ", ") + std::string(choice.first);
  Directive d{name, flags};
  d.set = [field, choices, list](Config& c, Values v) -> std::optional<ValueError> {
    for (const auto& [choice_name, value] : choices) {
      if (EqualsIgnoreCase(v[0], choice_name)) {
        c.*field = value;
        return std::nullopt;
      }
    }
    return ValueError{"argument must be one of the following: " + list, "must be one of " + list};
  };
  d.get = [field, choices](const Config& c) {
    for (const auto& [choice_name, value] : choices) {
      if (c.*field == value) return std::string(choice_name);
    }
    return std::string("unknown");  // as Redis's configEnumGetNameOrUnknown
  };
  return d;
}

// unixsocketperm: octal digits only, 0..0777, printed in octal (Redis: "%llo").
Directive OctalPermDirective() {
  const std::string expect = "must be an octal number between 0 and 777";
  Directive d{"unixsocketperm", kInFile};
  d.set = [expect](Config& c, Values v) -> std::optional<ValueError> {
    if (v[0].empty() || v[0].find_first_not_of("01234567") != std::string::npos) {
      return ValueError{"argument couldn't be parsed as an octal number", expect};
    }
    uint64_t value = 0;
    for (char ch : v[0]) {
      value = value * 8 + static_cast<uint64_t>(ch - '0');
      if (value > 0777) return ValueError{"argument must be between 0 and 777 inclusive", expect};
    }
    c.unixsocketperm = static_cast<uint32_t>(value);
    return std::nullopt;
  };
  d.get = [](const Config& c) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%o", static_cast<unsigned>(c.unixsocketperm));
    return std::string(buf);
  };
  return d;
}

// client-output-buffer-limit normal <hard> <soft> <soft_seconds> [normal ...], Redis's texts.
Directive OutputBufferLimitDirective() {
  const std::string expect =
      "must be 'normal <hard> <soft> <soft_seconds>' (memory values, seconds >= 0)";
  Directive d{"client-output-buffer-limit", kInFile | kRuntime | kMultiArg, 1, kUnlimited};
  d.set = [expect](Config& c, Values v) -> std::optional<ValueError> {
    if (v.size() % 4 != 0) {
      return ValueError{"Wrong number of arguments in buffer limit configuration.", expect};
    }
    OutputBufferLimit limit = c.client_output_buffer_limit;
    for (size_t j = 0; j < v.size(); j += 4) {
      if (!EqualsIgnoreCase(v[j], "normal")) {
        return ValueError{"Invalid client class specified in buffer limit configuration.", expect};
      }
      const std::optional<uint64_t> hard = ParseMemory(v[j + 1]);
      const std::optional<uint64_t> soft = ParseMemory(v[j + 2]);
      int64_t seconds = 0;
      if (!hard || !soft || !ParseInt64(v[j + 3], &seconds) || seconds < 0) {
        return ValueError{
            "Error in hard, soft or soft_seconds setting in buffer limit configuration.", expect};
      }
      limit = {*hard, *soft, seconds};
    }
    c.client_output_buffer_limit = limit;
    return std::nullopt;
  };
  d.get = [](const Config& c) {
    const OutputBufferLimit& l = c.client_output_buffer_limit;
    return "normal " + std::to_string(l.hard_bytes) + " " + std::to_string(l.soft_bytes) + " " +
           std::to_string(l.soft_seconds);
  };
  return d;
}

Directive ReadOnlyProbe(std::string_view name, std::string_view value) {
  Directive d{name, 0};
  d.get = [value](const Config&) { return std::string(value); };
  return d;
}

std::vector<Directive> BuildDirectives() {
  std::vector<Directive> t;
  t.push_back(IntDirective("port", kInFile, &Config::port, 0, 65535));
  {
    Directive d{"bind", kInFile | kMultiArg, 1, kMaxBindAddresses};
    d.set = [](Config& c, Values v) -> std::optional<ValueError> {
      if (v.size() == 1 && v[0].empty()) {
        c.bind.clear();  // bind "": every interface, as Redis
      } else {
        c.bind.assign(v.begin(), v.end());
      }
      return std::nullopt;
    };
    d.get = [](const Config& c) {
      std::string out;
      for (const std::string& a : c.bind) out += (out.empty() ? "" : " ") + a;
      return out;
    };
    t.push_back(std::move(d));
  }
  t.push_back(StringDirective("unixsocket", kInFile, &Config::unixsocket, true));
  t.push_back(OctalPermDirective());
  t.push_back(StringDirective("dir", kInFile, &Config::dir, false));
  t.push_back(StringDirective("requirepass", kInFile | kRuntime, &Config::requirepass, true));
  t.push_back(BoolDirective("protected-mode", kInFile | kRuntime, &Config::protected_mode));
  t.push_back(EnumDirective<AppendFsync>("appendfsync", kInFile | kRuntime, &Config::appendfsync,
                                         {{"everysec", AppendFsync::kEverysec},
                                          {"always", AppendFsync::kAlways},
                                          {"no", AppendFsync::kNo}}));
  t.push_back(IntDirective("maxclients", kInFile | kRuntime, &Config::maxclients, 1,
                           std::numeric_limits<uint32_t>::max()));
  t.push_back(IntDirective("timeout", kInFile | kRuntime, &Config::timeout, 0, kIntMax));
  t.push_back(MemoryDirective("proto-max-bulk-len", kInFile | kRuntime, &Config::proto_max_bulk_len,
                              kOneMb, kInt64Max));
  t.push_back(MemoryDirective("client-query-buffer-limit", kInFile | kRuntime,
                              &Config::client_query_buffer_limit, kOneMb, kInt64Max));
  t.push_back(
      IntDirective("lua-time-limit", kInFile | kRuntime, &Config::lua_time_limit, 0, kInt64Max));
  {
    Directive alias = IntDirective("busy-reply-threshold", kInFile | kRuntime | kExactOnly,
                                   &Config::lua_time_limit, 0, kInt64Max);
    alias.same_as = "lua-time-limit";
    t.push_back(std::move(alias));
  }
  t.push_back(EnumDirective<std::string>(
      "loglevel", kInFile | kRuntime, &Config::loglevel,
      {{"debug", "debug"}, {"verbose", "verbose"}, {"notice", "notice"}, {"warning", "warning"}}));
  t.push_back(StringDirective("logfile", kInFile, &Config::logfile, true));
  t.push_back(EnumDirective<DebugCommandMode>("enable-debug-command", kInFile,
                                              &Config::enable_debug_command,
                                              {{"no", DebugCommandMode::kNo},
                                               {"yes", DebugCommandMode::kYes},
                                               {"local", DebugCommandMode::kLocal}}));
  {
    Directive d{"policy", kInFile | kMultiArg, 2, kUnlimited};
    d.set = [](Config& c, Values v) -> std::optional<ValueError> {
      c.policies.emplace_back(v.begin(), v.end());
      return std::nullopt;
    };
    t.push_back(std::move(d));
  }
  t.push_back(OutputBufferLimitDirective());
  t.push_back(
      IntDirective("tcp-keepalive", kInFile | kRuntime, &Config::tcp_keepalive, 0, kIntMax));
  t.push_back(IntDirective("tcp-backlog", kInFile, &Config::tcp_backlog, 0, kIntMax));
  t.push_back(MemoryDirective("lua-memory-limit", kInFile | kRuntime, &Config::lua_memory_limit, 0,
                              kInt64Max));
  t.push_back(IntDirective("metrics-port", kInFile, &Config::metrics_port, 0, 65535));
  {
    Directive d{"rename-command", kInFile, 2, 2};
    d.set = [](Config& c, Values v) -> std::optional<ValueError> {
      c.rename_commands.emplace_back(v[0], v[1]);
      return std::nullopt;
    };
    t.push_back(std::move(d));
  }
  // Read-only answers for clients that probe Redis's parameters.
  t.push_back(ReadOnlyProbe("databases", "1"));
  t.push_back(ReadOnlyProbe("save", ""));
  t.push_back(ReadOnlyProbe("appendonly", "yes"));
  t.push_back(ReadOnlyProbe("maxmemory", "0"));
  t.push_back(ReadOnlyProbe("maxmemory-policy", "noeviction"));
  return t;
}

const std::vector<Directive>& Directives() {
  static const std::vector<Directive> directives = BuildDirectives();
  return directives;
}

const Directive* FindDirective(std::string_view name) {
  for (const Directive& d : Directives()) {
    if (EqualsIgnoreCase(d.name, name)) return &d;
  }
  return nullptr;
}

// --- Messages -------------------------------------------------------------------------------

// A value as it may appear inside a one-line message: control bytes escaped, long values cut.
std::string Printable(std::string_view s) {
  constexpr size_t kMaxShown = 120;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == kMaxShown) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string Join(Values values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? " " : "") + values[i];
  return out;
}

std::string ArgCountText(const Directive& d, size_t got) {
  std::string expects;
  if (d.max_args == kUnlimited) {
    expects = "at least " + std::to_string(d.min_args);
  } else if (d.min_args == d.max_args) {
    expects = std::to_string(d.min_args);
  } else {
    expects = std::to_string(d.min_args) + " to " + std::to_string(d.max_args);
  }
  return "wrong number of arguments for '" + std::string(d.name) + "' (expects " + expects +
         (d.max_args == 1 || (d.max_args == kUnlimited && d.min_args == 1) ? " value" : " values") +
         ", got " + std::to_string(got) + ")";
}

// Applies one `name values...` from the config file or the command line. Returns the problem,
// without its location, or nullopt.
std::optional<std::string> ApplyDirective(Config& config, std::string_view name,
                                          std::vector<std::string> values) {
  const Directive* d = FindDirective(name);
  if (d == nullptr || !(d->flags & kInFile)) {
    return "unknown directive '" + Printable(name) + "'";
  }
  if ((d->flags & kMultiArg) && values.size() == 1 && !values[0].empty()) {
    std::optional<std::vector<std::string>> words = SplitArgs(values[0]);
    if (!words) {
      return "unbalanced quotes in the value of '" + std::string(d->name) + "': '" +
             Printable(values[0]) + "'";
    }
    values = std::move(*words);
  }
  if (values.size() < d->min_args || values.size() > d->max_args) {
    return ArgCountText(*d, values.size());
  }
  if (std::optional<ValueError> error = d->set(config, values)) {
    return "'" + std::string(d->name) + "' " + error->expect + ", got '" + Printable(Join(values)) +
           "'";
  }
  return std::nullopt;
}

std::string_view TrimLine(std::string_view s) {
  constexpr std::string_view kBlanks = " \t\r\n";
  const size_t begin = s.find_first_not_of(kBlanks);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kBlanks) - begin + 1);
}

// Matches the single-character token at pattern[*pi] ('?', a [class], an escaped or plain
// character) against c, and moves *pi past the token. Follows Redis's stringmatchlen, including
// an unterminated class ending at the end of the pattern.
bool HasGlobChars(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

std::string ConfigSetFailed(std::string_view name, std::string_view detail) {
  return "CONFIG SET failed (possibly related to argument '" + std::string(name) + "') - " +
         std::string(detail);
}

// CONFIG SET splits a several-word parameter's value on spaces (Redis: sdssplitlen(" ")).
std::vector<std::string> SplitOnSpaces(std::string_view value) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < value.size()) {
    const size_t end = std::min(value.find(' ', pos), value.size());
    if (end > pos) words.emplace_back(value.substr(pos, end - pos));
    pos = end + 1;
  }
  return words;
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) {
    return Err("can't read config file '" + Printable(path) + "': " + std::strerror(errno));
  }
  std::string text;
  char buf[8192];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), file.get())) > 0) text.append(buf, n);
  if (std::ferror(file.get())) {
    return Err("can't read config file '" + Printable(path) + "': " + std::strerror(errno));
  }
  return text;
}

}  // namespace

// --- Public API -------------------------------------------------------------------------------

std::optional<uint64_t> ParseMemory(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  const std::string_view unit = text.substr(digits);
  uint64_t mul = 0;
  if (unit.empty() || EqualsIgnoreCase(unit, "b")) {
    mul = 1;
  } else if (EqualsIgnoreCase(unit, "k")) {
    mul = 1000;
  } else if (EqualsIgnoreCase(unit, "kb")) {
    mul = 1024;
  } else if (EqualsIgnoreCase(unit, "m")) {
    mul = 1000ull * 1000;
  } else if (EqualsIgnoreCase(unit, "mb")) {
    mul = 1024ull * 1024;
  } else if (EqualsIgnoreCase(unit, "g")) {
    mul = 1000ull * 1000 * 1000;
  } else if (EqualsIgnoreCase(unit, "gb")) {
    mul = 1024ull * 1024 * 1024;
  } else {
    return std::nullopt;
  }
  uint64_t value = 0;
  for (size_t i = 0; i < digits; ++i) {
    const auto digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (value > std::numeric_limits<uint64_t>::max() / mul) return std::nullopt;
  return value * mul;
}

std::optional<std::vector<std::string>> SplitArgs(std::string_view line) {
  std::string storage;
  std::vector<resp::ArgSpan> spans;
  if (!resp::SplitInlineArgs(line, &storage, &spans)) return std::nullopt;
  std::vector<std::string> words;
  words.reserve(spans.size());
  for (const resp::ArgSpan& span : spans) words.emplace_back(storage, span.offset, span.length);
  return words;
}

Status ApplyConfigText(std::string_view text, Config* config) {
  Config result = *config;
  size_t line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = TrimLine(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const std::string where = "config line " + std::to_string(line_number) + ": ";
    std::optional<std::vector<std::string>> words = SplitArgs(line);
    if (!words) return Err(where + "unbalanced quotes in '" + Printable(line) + "'");
    if (words->empty()) continue;
    std::vector<std::string> values(std::make_move_iterator(words->begin() + 1),
                                    std::make_move_iterator(words->end()));
    if (std::optional<std::string> error =
            ApplyDirective(result, words->front(), std::move(values))) {
      return Err(where + *error);
    }
  }
  *config = std::move(result);
  return Status::Ok();
}

StatusOr<Config> LoadConfig(int argc, const char* const* argv, StartAction* action) {
  *action = StartAction::kRun;
  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i] != nullptr ? argv[i] : "");

  if (!args.empty() && (args[0] == "-v" || args[0] == "--version")) {
    *action = StartAction::kPrintVersion;
    return Config{};
  }
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    *action = StartAction::kPrintHelp;
    return Config{};
  }

  size_t next = 0;
  std::string config_file;
  if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
    config_file = std::string(args[0]);
    next = 1;
  }

  // Group the options first, so --version/--help anywhere answer before any file is read.
  struct Option {
    std::string name;
    std::vector<std::string> values;
  };
  std::vector<Option> options;
  bool wants_value = false;  // the last --name has no value yet: the next word is its value
  for (size_t i = next; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (!wants_value && arg.starts_with("--")) {
      std::optional<std::vector<std::string>> words = SplitArgs(arg.substr(2));
      if (!words || words->empty()) {
        return Err("command line: bad option '" + Printable(arg) + "'");
      }
      Option option{std::move(words->front()), {}};
      option.values.assign(std::make_move_iterator(words->begin() + 1),
                           std::make_move_iterator(words->end()));
      if (option.values.empty() && (option.name == "version" || option.name == "help")) {
        *action = option.name == "version" ? StartAction::kPrintVersion : StartAction::kPrintHelp;
        return Config{};
      }
      wants_value = option.values.empty();
      options.push_back(std::move(option));
    } else if (options.empty()) {
      return Err("command line: unexpected argument '" + Printable(arg) +
                 "' (expected [CONFIG_FILE] [--directive value ...])");
    } else {
      options.back().values.emplace_back(arg);
      wants_value = false;
    }
  }

  Config config;
  if (!config_file.empty()) {
    StatusOr<std::string> text = ReadFile(config_file);
    if (!text.ok()) return text.status();
    SLUICE_RETURN_IF_ERROR(ApplyConfigText(*text, &config));
  }
  for (Option& option : options) {
    if (std::optional<std::string> error =
            ApplyDirective(config, option.name, std::move(option.values))) {
      return Err("command line: " + *error);
    }
  }
  return config;
}

std::string UsageText(std::string_view program) {
  const std::string p(program.empty() ? "sluiced" : program);
  return "Usage: " + p + " [/path/to/sluice.conf] [--directive value ...]\n" + "       " + p +
         " -v or --version\n" + "       " + p + " -h or --help\n\n" +
         "Directives are those of the config file (port, bind, dir, requirepass, policy ...);\n" +
         "command-line options override the file. Examples:\n" + "       " + p +
         " /etc/sluice/sluice.conf\n" + "       " + p + " --port 7777 --dir /var/lib/sluice\n" +
         "       " + p + " /etc/sluice/sluice.conf --bind 127.0.0.1 ::1 --loglevel verbose\n";
}

std::vector<std::pair<std::string, std::string>> ConfigGet(const Config& config,
                                                           std::string_view glob_pattern) {
  const std::string_view patterns[] = {glob_pattern};
  return ConfigGet(config, patterns);
}

std::vector<std::pair<std::string, std::string>> ConfigGet(
    const Config& config, std::span<const std::string_view> glob_patterns) {
  const std::vector<Directive>& table = Directives();
  std::vector<bool> taken(table.size(), false);
  std::vector<std::pair<std::string, std::string>> out;
  for (std::string_view pattern : glob_patterns) {
    const bool glob = HasGlobChars(pattern);
    for (size_t i = 0; i < table.size(); ++i) {
      const Directive& d = table[i];
      if (taken[i] || !d.get) continue;
      const bool match = glob ? !(d.flags & kExactOnly) && GlobMatch(pattern, d.name, true)
                              : EqualsIgnoreCase(pattern, d.name);
      if (!match) continue;
      taken[i] = true;
      out.emplace_back(std::string(d.name), d.get(config));
    }
  }
  return out;
}

Status ConfigSet(Config* config, std::span<const std::string_view> name_value_pairs) {
  if (name_value_pairs.empty() || name_value_pairs.size() % 2 != 0) return SyntaxError();
  const size_t count = name_value_pairs.size() / 2;

  // Names first, as Redis: the first unknown, immutable or repeated name fails the whole call.
  std::vector<const Directive*> targets(count, nullptr);
  for (size_t i = 0; i < count; ++i) {
    const std::string_view name = name_value_pairs[2 * i];
    const Directive* d = FindDirective(name);
    if (d == nullptr || !d->get) {
      return Err("Unknown option or number of arguments for CONFIG SET - '" + std::string(name) +
                 "'");
    }
    if (!(d->flags & kRuntime)) return Err(ConfigSetFailed(name, "can't set immutable config"));
    const std::string_view key = d->same_as.empty() ? d->name : d->same_as;
    for (size_t j = 0; j < i; ++j) {
      const std::string_view other =
          targets[j]->same_as.empty() ? targets[j]->name : targets[j]->same_as;
      if (other == key) return Err(ConfigSetFailed(name, "duplicate parameter"));
    }
    targets[i] = d;
  }

  // Then the values, on a copy: all or nothing.
  Config updated = *config;
  for (size_t i = 0; i < count; ++i) {
    const Directive& d = *targets[i];
    const std::string_view value = name_value_pairs[2 * i + 1];
    std::vector<std::string> values;
    if (d.flags & kMultiArg) {
      values = SplitOnSpaces(value);
    } else {
      values.emplace_back(value);
    }
    if (std::optional<ValueError> error = d.set(updated, values)) {
      return Err(ConfigSetFailed(d.name, error->redis));
    }
  }
  *config = std::move(updated);
  return Status::Ok();
}

}  // namespace sluice::server
