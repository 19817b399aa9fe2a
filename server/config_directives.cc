// The directive table (server/config_directives.h): the value kinds (integer, memory, bool,
// string, enum, octal permissions, client-output-buffer-limit), each directive with Redis 7.0's
// bounds, and ParseMemory.

#include "server/config_directives.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "resp/inline_args.h"
#include "server/arg_cursor.h"
#include "server/keyspace_event_flags.h"

namespace sluice::server {
namespace config_internal {
namespace {

constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();    // Redis's INT_MAX bounds
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();  // LONG_MAX / LLONG_MAX
constexpr uint64_t kOneMb = 1ull << 20;
constexpr size_t kMaxBindAddresses = 16;  // Redis's CONFIG_BINDADDR_MAX

// --- Value parsers shared by the directive kinds -------------------------------------------

// "name value": the line CONFIG REWRITE writes for most directives.
std::vector<RewriteLine> OneLine(std::string_view name, std::string_view value, bool force) {
  std::string text(name);
  text += ' ';
  text += value;
  return {{std::move(text), force}};
}

// CONFIG REWRITE for a directive that is one field: its "name value" line, `text` printing the
// value, forced when the field is not at its default.
template <typename T>
Rewriter FieldLine(std::string_view name, T Config::*field, Getter text) {
  return [name, field, text = std::move(text)](const Config& c) {
    return OneLine(name, text(c), c.*field != DefaultConfig().*field);
  };
}

// CONFIG SET's refusal of a value out of [lo, hi] (Redis's text), and start-up's `expect`.
template <typename N>
ValueError OutOfRange(N lo, N hi, const std::string& expect) {
  return ValueError{"argument must be between " + std::to_string(lo) + " and " +
                        std::to_string(hi) + " inclusive",
                    expect};
}

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
    if (value < lo || value > hi) return OutOfRange(lo, hi, expect);
    c.*field = static_cast<T>(value);
    return std::nullopt;
  };
  d.get = [field](const Config& c) { return std::to_string(c.*field); };
  d.rewrite = FieldLine(name, field, d.get);
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
    if (*value < lo || *value > hi) return OutOfRange(lo, hi, expect);
    c.*field = *value;
    return std::nullopt;
  };
  d.get = [field](const Config& c) { return std::to_string(c.*field); };
  d.rewrite = FieldLine(name, field, [field](const Config& c) { return FormatMemory(c.*field); });
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
  d.rewrite = FieldLine(name, field, d.get);
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
  // Quoted as Redis writes strings. An empty one (no requirepass) gets no line at all, as Redis
  // writes a string it keeps as NULL.
  d.rewrite = [name, field](const Config& c) -> std::vector<RewriteLine> {
    if ((c.*field).empty()) return {};
    std::string quoted;
    resp::AppendRepr(c.*field, &quoted);
    return OneLine(name, quoted, c.*field != DefaultConfig().*field);
  };
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
    return ValueError{"argument(s) must be one of the following: " + list,
                      "must be one of " + list};
  };
  d.get = [field, choices](const Config& c) {
    for (const auto& [choice_name, value] : choices) {
      if (c.*field == value) return std::string(choice_name);
    }
    return std::string("unknown");  // as Redis's configEnumGetNameOrUnknown
  };
  d.rewrite = FieldLine(name, field, d.get);
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

// A directive that may repeat, each line kept whole (`policy NAME ALGORITHM ...`, `user NAME
// RULES...`) for its own code to check at start.
Directive LinesDirective(std::string_view name, size_t min_words,
                         std::vector<std::vector<std::string>> Config::*field) {
  Directive d{name, kInFile | kMultiArg, min_words, kUnlimited};
  d.set = [field](Config& c, Values v) -> std::optional<ValueError> {
    (c.*field).emplace_back(v.begin(), v.end());
    return std::nullopt;
  };
  return d;
}

// client-output-buffer-limit <class> <hard> <soft> <soft_seconds> [<class> ...], Redis's
// classes (normal, replica or slave, pubsub) and texts.
Directive OutputBufferLimitDirective() {
  const std::string expect =
      "must be '<class> <hard> <soft> <soft_seconds>' with class normal, replica or pubsub "
      "(memory values, seconds >= 0)";
  Directive d{"client-output-buffer-limit", kInFile | kRuntime | kMultiArg, 1, kUnlimited};
  d.set = [expect](Config& c, Values v) -> std::optional<ValueError> {
    if (v.size() % 4 != 0) {
      return ValueError{"Wrong number of arguments in buffer limit configuration.", expect};
    }
    OutputBufferLimit normal = c.client_output_buffer_limit;
    OutputBufferLimit replica = c.client_output_buffer_limit_replica;
    OutputBufferLimit pubsub = c.client_output_buffer_limit_pubsub;
    for (size_t j = 0; j < v.size(); j += 4) {
      OutputBufferLimit* limit = nullptr;
      if (EqualsIgnoreCase(v[j], "normal")) {
        limit = &normal;
      } else if (EqualsIgnoreCase(v[j], "replica") || EqualsIgnoreCase(v[j], "slave")) {
        limit = &replica;
      } else if (EqualsIgnoreCase(v[j], "pubsub")) {
        limit = &pubsub;
      } else {
        return ValueError{"Invalid client class specified in buffer limit configuration.", expect};
      }
      const std::optional<uint64_t> hard = ParseMemory(v[j + 1]);
      const std::optional<uint64_t> soft = ParseMemory(v[j + 2]);
      // Read with strtoll, as Redis reads it: a sign and leading blanks are taken.
      char* end = nullptr;
      errno = 0;
      const int64_t seconds = std::strtoll(v[j + 3].c_str(), &end, 10);
      if (!hard || !soft || *end != '\0' || errno == ERANGE || seconds < 0) {
        return ValueError{
            "Error in hard, soft or soft_seconds setting in buffer limit configuration.", expect};
      }
      *limit = {*hard, *soft, seconds};
    }
    c.client_output_buffer_limit = normal;
    c.client_output_buffer_limit_replica = replica;
    c.client_output_buffer_limit_pubsub = pubsub;
    return std::nullopt;
  };
  d.get = [](const Config& c) {
    auto format = [](std::string_view name, const OutputBufferLimit& l) {
      return std::string(name) + " " + std::to_string(l.hard_bytes) + " " +
             std::to_string(l.soft_bytes) + " " + std::to_string(l.soft_seconds);
    };
    return format("normal", c.client_output_buffer_limit) + " " +
           format("slave", c.client_output_buffer_limit_replica) + " " +
           format("pubsub", c.client_output_buffer_limit_pubsub);
  };
  // One line per class, as Redis: normal, replica, pubsub; each forced when not its default.
  d.rewrite = [](const Config& c) {
    auto line = [&c](std::string_view name, OutputBufferLimit Config::*field) {
      const OutputBufferLimit& l = c.*field;
      return RewriteLine{"client-output-buffer-limit " + std::string(name) + " " +
                             FormatMemory(l.hard_bytes) + " " + FormatMemory(l.soft_bytes) + " " +
                             std::to_string(l.soft_seconds),
                         l != DefaultConfig().*field};
    };
    return std::vector<RewriteLine>{line("normal", &Config::client_output_buffer_limit),
                                    line("replica", &Config::client_output_buffer_limit_replica),
                                    line("pubsub", &Config::client_output_buffer_limit_pubsub)};
  };
  return d;
}

// notify-keyspace-events "KEA": class letters, CONFIG GET's text normalised as Redis's.
Directive KeyspaceEventsDirective() {
  Directive d{"notify-keyspace-events", kInFile | kRuntime};
  d.set = [](Config& c, Values v) -> std::optional<ValueError> {
    const std::optional<uint32_t> flags = ParseKeyspaceEvents(v[0]);
    if (!flags) {
      return ValueError{std::string(kInvalidKeyspaceEvents),
                        "must be event class characters from 'Ag$lshzxeKEtmdn'"};
    }
    c.notify_keyspace_events = *flags;
    return std::nullopt;
  };
  d.get = [](const Config& c) { return FormatKeyspaceEvents(c.notify_keyspace_events); };
  // Quoted, as Redis writes it; written while any class is on.
  d.rewrite = [get = d.get](const Config& c) {
    std::string quoted;
    resp::AppendRepr(get(c), &quoted);
    return OneLine("notify-keyspace-events", quoted, c.notify_keyspace_events != 0);
  };
  return d;
}

// A Redis parameter sluice only answers for (clients probe it): CONFIG GET gives the one
// value sluice has, and CONFIG SET takes that value, changing nothing, and refuses any other
// with `why` (it said "immutable config" even to the value it held).
Directive FixedProbe(std::string_view name, std::string_view value,
                     std::function<bool(std::string_view)> is_value, std::string_view why) {
  Directive d{name, kRuntime};
  d.get = [value](const Config&) { return std::string(value); };
  d.set = [is_value = std::move(is_value), why](Config&, Values v) -> std::optional<ValueError> {
    if (is_value(v[0])) return std::nullopt;
    return ValueError{std::string(why), std::string(why)};
  };
  d.rewrite = [](const Config&) { return std::vector<RewriteLine>{}; };  // never a file line
  return d;
}

Directive FixedProbe(std::string_view name, std::string_view value, std::string_view why) {
  return FixedProbe(
      name, value, [value](std::string_view v) { return EqualsIgnoreCase(v, value); }, why);
}

// latency-tracking-info-percentiles "50 99 99.9": none, or numbers from 0 to 100, as Redis's
// (each read as Redis's string2d reads it: ParseDouble).
Directive PercentilesDirective() {
  Directive d{"latency-tracking-info-percentiles", kInFile | kRuntime | kMultiArg, 1, kUnlimited};
  d.set = [](Config& c, Values v) -> std::optional<ValueError> {
    std::vector<double> percentiles;
    for (const std::string& word : v) {
      if (word.empty() && v.size() == 1) break;  // "": none
      double value = 0;
      if (!ParseDouble(word, &value)) {
        return ValueError{"Invalid latency-tracking-info-percentiles parameters",
                          "must be numbers between 0 and 100"};
      }
      if (value < 0 || value > 100) {
        return ValueError{
            "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]",
            "must be numbers between 0 and 100"};
      }
      percentiles.push_back(value);
    }
    c.latency_tracking_info_percentiles = std::move(percentiles);
    return std::nullopt;
  };
  d.get = [](const Config& c) {
    std::string out;
    for (double p : c.latency_tracking_info_percentiles) {
      if (!out.empty()) out += ' ';
      out += PercentileText(p);
    }
    return out;
  };
  // Redis 7.0 always writes this one, default or not; "" for none.
  d.rewrite = [get = d.get](const Config& c) {
    const std::string value = get(c);
    return OneLine("latency-tracking-info-percentiles", value.empty() ? "\"\"" : value, true);
  };
  return d;
}

std::vector<Directive> BuildDirectives() {
  std::vector<Directive> t;
  t.push_back(IntDirective("port", kInFile, &Config::port, 0, 65535));
  {
    Directive d{"bind", kInFile | kMultiArg, 1, kMaxBindAddresses};
    d.set = [](Config& c, Values v) -> std::optional<ValueError> {
      if (v.size() == 1 && v[0].empty()) {
        c.bind.clear();  // bind "": no TCP socket (a unixsocket alone), as Redis
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
  t.push_back(StringDirective("dir", kInFile | kProtected, &Config::dir, false));
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
  {
    Directive d =
        IntDirective("lua-time-limit", kInFile | kRuntime, &Config::lua_time_limit, 0, kInt64Max);
    // Redis 7.0 names it busy-reply-threshold (lua-time-limit is its alias there), and so
    // CONFIG REWRITE writes it, on a lua-time-limit line too.
    d.rewrite = FieldLine("busy-reply-threshold", &Config::lua_time_limit, d.get);
    t.push_back(std::move(d));
  }
  {
    Directive alias = IntDirective("busy-reply-threshold", kInFile | kRuntime,
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
  t.push_back(LinesDirective("policy", 2, &Config::policies));
  t.push_back(LinesDirective("user", 1, &Config::users));
  t.push_back(StringDirective("aclfile", kInFile, &Config::aclfile, true));
  t.push_back(OutputBufferLimitDirective());
  t.push_back(
      IntDirective("tcp-keepalive", kInFile | kRuntime, &Config::tcp_keepalive, 0, kIntMax));
  t.push_back(IntDirective("tcp-backlog", kInFile, &Config::tcp_backlog, 0, kIntMax));
  t.push_back(MemoryDirective("lua-memory-limit", kInFile | kRuntime, &Config::lua_memory_limit, 0,
                              kInt64Max));
  t.push_back(IntDirective("metrics-port", kInFile, &Config::metrics_port, 0, 65535));
  t.push_back(IntDirective("databases", kInFile, &Config::databases, 1, kMaxDatabases));
  t.push_back(MemoryDirective("rocksdb-write-buffer-size", kInFile,
                              &Config::rocksdb_write_buffer_size, kOneMb, 1024 * kOneMb));
  t.push_back(MemoryDirective("record-cache-size", kInFile | kRuntime, &Config::record_cache_size,
                              0, kInt64Max));
  t.push_back(IntDirective("slowlog-log-slower-than", kInFile | kRuntime,
                           &Config::slowlog_log_slower_than, -1, kInt64Max));
  t.push_back(
      IntDirective("slowlog-max-len", kInFile | kRuntime, &Config::slowlog_max_len, 0, kInt64Max));
  t.push_back(IntDirective("latency-monitor-threshold", kInFile | kRuntime,
                           &Config::latency_monitor_threshold, 0, kInt64Max));
  t.push_back(PercentilesDirective());
  t.push_back(BoolDirective("latency-tracking", kInFile | kRuntime, &Config::latency_tracking));
  t.push_back(BoolDirective("jemalloc-bg-thread", kInFile | kRuntime, &Config::jemalloc_bg_thread));
  t.push_back(KeyspaceEventsDirective());
  t.push_back(IntDirective("tracking-table-max-keys", kInFile | kRuntime,
                           &Config::tracking_table_max_keys, 0, kInt64Max));
  t.push_back(MemoryDirective("hll-sparse-max-bytes", kInFile | kRuntime,
                              &Config::hll_sparse_max_bytes, 0, kInt64Max));
  {
    Directive d{"rename-command", kInFile, 2, 2};
    d.set = [](Config& c, Values v) -> std::optional<ValueError> {
      c.rename_commands.emplace_back(v[0], v[1]);
      return std::nullopt;
    };
    t.push_back(std::move(d));
  }
  // Read-only answers for clients that probe Redis's parameters.
  t.push_back(FixedProbe("save", "", "sluice takes no snapshots: every write is in its log"));
  t.push_back(FixedProbe("appendonly", "yes", "sluice always logs every write"));
  t.push_back(FixedProbe(
      "maxmemory", "0", [](std::string_view v) { return ParseMemory(v) == uint64_t{0}; },
      "sluice has no memory limit (keys live on disk; it evicts nothing)"));
  t.push_back(FixedProbe("maxmemory-policy", "noeviction",
                         "sluice evicts nothing: its only policy is noeviction"));
  return t;
}

}  // namespace

const Config& DefaultConfig() {
  static const Config defaults;
  return defaults;
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

bool SplitMultiArgValue(const Directive& d, std::vector<std::string>* values) {
  if (!(d.flags & kMultiArg) || values->size() != 1 || (*values)[0].empty()) return true;
  std::optional<std::vector<std::string>> words = SplitArgs((*values)[0]);
  if (!words) return false;
  *values = std::move(*words);
  return true;
}

}  // namespace config_internal

std::string PercentileText(double percentile) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%f", percentile);
  std::string text(buf);
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

std::string FormatMemory(uint64_t bytes) {
  constexpr uint64_t kKb = 1024, kMb = kKb * 1024, kGb = kMb * 1024;
  if (bytes != 0 && bytes % kGb == 0) return std::to_string(bytes / kGb) + "gb";
  if (bytes != 0 && bytes % kMb == 0) return std::to_string(bytes / kMb) + "mb";
  if (bytes != 0 && bytes % kKb == 0) return std::to_string(bytes / kKb) + "kb";
  return std::to_string(bytes);
}

std::optional<uint64_t> ParseMemory(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
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
  // As Redis 7.0's memtoull: strtoull of the digits (none is 0; too many saturate), times the
  // unit, wrapping. A memory directive's range then refuses what is too large.
  uint64_t value = 0;
  for (size_t i = 0; i < digits; ++i) {
    const auto digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      value = std::numeric_limits<uint64_t>::max();
      break;
    }
    value = value * 10 + digit;
  }
  return value * mul;
}

}  // namespace sluice::server
