#pragma once

// sluiced's configuration: redis.conf-style text, command-line overrides, and the registry
// behind CONFIG GET / CONFIG SET. Everything here is std only (no I/O besides reading the config
// file in LoadConfig and writing it in RewriteConfigFile), so its unit tests need nothing else.
// The directive table is config_directives.{h,cc}; loading is config_load.cc; CONFIG GET/SET is
// config_get_set.cc; CONFIG REWRITE is config_rewrite.cc, over config_file_io.cc.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace sluice::server {

enum class AppendFsync { kAlways, kEverysec, kNo };
enum class DebugCommandMode { kNo, kYes, kLocal };

// client-output-buffer-limit for the "normal" class.
struct OutputBufferLimit {
  uint64_t hard_bytes = 64ull << 20;
  uint64_t soft_bytes = 16ull << 20;
  int64_t soft_seconds = 60;
  bool operator==(const OutputBufferLimit&) const = default;
};

// Field bounds are those of Redis 7.0's config.c where the directive exists there.
// The most databases the `databases` directive allows (storage::kMaxDatabases).
inline constexpr int kMaxDatabases = 128;

struct Config {
  int port = 6379;                                        // 0..65535, 0 disables TCP
  std::vector<std::string> bind = {"127.0.0.1", "-::1"};  // 0..16 addresses; empty: all
  std::string unixsocket;                                 // empty: none
  uint32_t unixsocketperm = 0;                            // octal as in redis.conf, 0 = default
  std::string dir = "./sluice-data";                      // never empty
  std::string requirepass;                                // empty: no password
  bool protected_mode = true;
  AppendFsync appendfsync = AppendFsync::kEverysec;
  int64_t maxclients = 10000;                       // 1..4294967295
  int64_t timeout = 0;                              // seconds, 0..INT_MAX, 0 = never
  uint64_t proto_max_bulk_len = 512ull << 20;       // 1mb..INT64_MAX
  uint64_t client_query_buffer_limit = 1ull << 30;  // 1mb..INT64_MAX
  int64_t lua_time_limit = 5000;                    // ms, 0..INT64_MAX (alias busy-reply-threshold)
  std::string loglevel = "notice";                  // debug verbose notice warning (lower case)
  std::string logfile;                              // empty: stderr
  DebugCommandMode enable_debug_command = DebugCommandMode::kNo;
  // Each `policy NAME ALGORITHM ARGS...` line, the words after "policy" (at least two),
  // validated later by the policy code.
  std::vector<std::vector<std::string>> policies;
  // Each `user NAME RULES...` line (as redis.conf), the words after "user", applied at start.
  std::vector<std::vector<std::string>> users;
  // The ACL file ("" for none): its users replace these lines' (both set: the start fails, as
  // Redis). Read at start and by ACL LOAD, written by ACL SAVE; a relative path is relative to
  // sluiced's working directory.
  std::string aclfile;
  OutputBufferLimit client_output_buffer_limit;  // "client-output-buffer-limit normal 64mb 16mb 60"
  // The pubsub class (clients with subscriptions), Redis's default "pubsub 32mb 8mb 60".
  OutputBufferLimit client_output_buffer_limit_pubsub{32ull << 20, 8ull << 20, 60};
  // The replica class ("replica" or "slave"): sluice has no replicas, but a Redis config that
  // sets it loads and round-trips through CONFIG GET/SET. Redis's default "256mb 64mb 60".
  OutputBufferLimit client_output_buffer_limit_replica{256ull << 20, 64ull << 20, 60};
  int64_t tcp_keepalive = 300;                   // seconds, 0..INT_MAX
  int64_t tcp_backlog = 511;                     // 0..INT_MAX
  uint64_t lua_memory_limit = 64ull << 20;       // 0..INT64_MAX, 0 = no limit
  int metrics_port = 0;                          // 0..65535, 0 = off
  int64_t slowlog_log_slower_than = 10000;       // us, -1..INT64_MAX, -1 = no slow log
  int64_t slowlog_max_len = 128;                 // 0..INT64_MAX entries
  int64_t latency_monitor_threshold = 0;         // ms, 0..INT64_MAX, 0 = no latency monitor
  bool latency_tracking = true;                  // per-command latency histograms
  // jemalloc's background purge thread: pages freed in a burst go back to the system while the
  // server idles, as with Redis's jemalloc-bg-thread (without it they stay until the next
  // allocations in their arena).
  bool jemalloc_bg_thread = true;
  // The percentiles INFO latencystats prints, each 0..100 (none: the section is empty).
  std::vector<double> latency_tracking_info_percentiles = {50.0, 99.0, 99.9};
  // A sparse HyperLogLog that an add would grow past this many bytes (header included) turns
  // dense, as Redis's hll-sparse-max-bytes. 0..INT64_MAX.
  uint64_t hll_sparse_max_bytes = 3000;
  // tracking-table-max-keys: client-side caching's tracked keys before random ones are evicted
  // (with invalidations); 0 = no limit.
  int64_t tracking_table_max_keys = 1'000'000;
  // notify-keyspace-events: the KeyspaceEventClass bits to publish (server/keyspace_event_flags.h);
  // 0, the default, publishes nothing.
  uint32_t notify_keyspace_events = 0;
  // SELECT's databases, 0 to databases-1, as Redis's (default 16); at most 128
  // (storage::kMaxDatabases). Each one ever selected is a RocksDB column family.
  int databases = 16;
  // The size of each RocksDB memtable (write buffer), 1mb..1gb. The WAL is capped at four of
  // them: a full WAL flushes the families that keep its oldest file alive.
  uint64_t rocksdb_write_buffer_size = 32ull << 20;
  // The record cache in front of RocksDB (storage/record_cache.h): about 100 bytes a limiter
  // key, so the default holds about 1,400,000; a decision on a key past it reads RocksDB's
  // files. 0 turns it off.
  uint64_t record_cache_size = 128ull << 20;
  // rename-command NAME NEWNAME ("" disables), in order; the command table checks the names.
  std::vector<std::pair<std::string, std::string>> rename_commands;
};

// The client-output-buffer-limit class a client is in: pubsub once it has a subscription.
inline const OutputBufferLimit& OutputLimitFor(const Config& config, bool subscribed) {
  return subscribed ? config.client_output_buffer_limit_pubsub : config.client_output_buffer_limit;
}

// appendfsync always: every commit is synced before its replies go out.
inline bool SyncsEveryCommit(const Config& config) {
  return config.appendfsync == AppendFsync::kAlways;
}

// Parses redis.conf-style text onto *config: one `directive value...` per line, `#` comments,
// blank lines, arguments split as Redis's sdssplitargs (quotes: requirepass "a b").
// Directive names are case-insensitive. `policy` and `rename-command` accumulate; for the others
// the last line wins. On error *config is unchanged and the message is one line such as
// "config line 3: 'port' must be an integer between 0 and 65535, got 'abc'".
Status ApplyConfigText(std::string_view text, Config* config);

// `sluiced [CONFIG_FILE] [--directive value ...]`, argv as main's (argv[0] is the program).
// The config file (a first argument not starting with '-') is read first, then the `--`
// options override it, as redis-server: `--bind 127.0.0.1 ::1` takes every argument up to the
// next `--name`; the first argument after a name is always its value (`--requirepass --x`);
// "--port 7000" as one argument also works. `-v`/`--version` and `-h`/`--help` set *action
// (then the returned Config is the default one and nothing is read). Errors are one line.
enum class StartAction { kRun, kPrintVersion, kPrintHelp };
StatusOr<Config> LoadConfig(int argc, const char* const* argv, StartAction* action);

// The text printed for --help.
std::string UsageText(std::string_view program);

// CONFIG GET: every parameter whose name matches the glob (case-insensitive, as Redis), with its
// value as Redis 7.0 prints it (memory as plain bytes, booleans yes/no, bind space-separated,
// client-output-buffer-limit "normal 67108864 16777216 60 pubsub 33554432 8388608 60"). Besides the
// directives above (but policy and rename-command), read-only probes: busy-reply-threshold (alias
// of lua-time-limit, exact name only), save "", appendonly "yes". In registry order.
std::vector<std::pair<std::string, std::string>> ConfigGet(const Config& config,
                                                           std::string_view glob_pattern);
// Several patterns (Redis 7.0's CONFIG GET p1 p2 ...): each parameter at most once.
std::vector<std::pair<std::string, std::string>> ConfigGet(
    const Config& config, std::span<const std::string_view> glob_patterns);

// CONFIG SET name value [name value ...], all or nothing, with Redis 7.0's error texts
// (Code::kErr, the message after "ERR "):
//   "Unknown option or number of arguments for CONFIG SET - 'foo'"
//   "CONFIG SET failed (possibly related to argument 'port') - can't set immutable config"
//   "CONFIG SET failed (possibly related to argument 'timeout') - argument couldn't be parsed
//    into an integer" (and "... must be between X and Y inclusive", "must be a memory value",
//    "must be 'yes' or 'no'", "must be one of the following: ...", "duplicate parameter")
// An odd count (or none) is Code::kSyntax "syntax error". Runtime-settable: requirepass,
// protected-mode, appendfsync, maxclients, timeout, proto-max-bulk-len, client-query-buffer-limit,
// lua-time-limit (busy-reply-threshold), loglevel, client-output-buffer-limit, tcp-keepalive,
// lua-memory-limit, slowlog-log-slower-than, slowlog-max-len, latency-monitor-threshold,
// latency-tracking, latency-tracking-info-percentiles, hll-sparse-max-bytes. Applying
// the change (log level, limits on open clients) is the caller's job.
Status ConfigSet(Config* config, std::span<const std::string_view> name_value_pairs);

// What CONFIG REWRITE writes besides the Config: the server's users and policies now.
struct RewriteSources {
  // Every ACL user as its `user` line's words after "user" ("alice on #... ~* +@all"), in
  // name order; Redis (without an aclfile) writes them all. None with an aclfile: the
  // file's `user` lines are then removed, as Redis does.
  std::vector<std::string> users;
  // Each policy's definition ("TOKENBUCKET 100 10 1000") by name: what a `policy` line of the
  // file becomes (one whose policy is gone is removed; other policies stay out of the file).
  std::map<std::string, std::string, std::less<>> policies;
};

// CONFIG REWRITE's new text for a config file, by Redis 7.0's rules: every line trimmed, a
// comment or blank line kept (a run of blank lines becomes one); a line Redis would not load
// (unknown directive, unbalanced quotes) becomes a "# ??? " comment; each runtime directive
// (kRuntime) is written on its first line(s) in the file, in place, its further lines removed,
// and only when its value is not the default is it appended where the file has no line for it,
// after a "# Generated by CONFIG REWRITE" line (written once). `user` lines are every user,
// `policy` lines the current definitions. The lines of directives CONFIG SET refuses
// (port, dir, rename-command ...) stay as they are.
std::string RewriteConfigText(std::string_view old_text, const Config& config,
                              const RewriteSources& sources);

// CONFIG REWRITE: the file at `path` (none yet: an empty one) rewritten by RewriteConfigText,
// atomically, as Redis 7.0: written to a temporary file in the same directory, synced, renamed
// over `path`, the directory synced. The new file keeps the old one's permissions. On an error
// the old file is untouched and the message is the system's (strerror), as Redis reports it.
Status RewriteConfigFile(const std::string& path, const Config& config,
                         const RewriteSources& sources);

// Helpers, exposed for the command code and tests.

// A percentile as Redis prints it (INFO latencystats, CONFIG GET): "%f" without its trailing
// zeros, so 50, 99.9, 99.99.
std::string PercentileText(double percentile);

// Redis's sdssplitargs (resp/inline_args.h): nullopt on unbalanced quotes (or a closing quote
// not followed by a space).
std::optional<std::vector<std::string>> SplitArgs(std::string_view line);

// Redis's memtoull: digits with an optional unit b, k (1000), kb (1024), m, mb, g, gb, any case
// (no digits read as 0, as Redis's; too many saturate and the unit wraps, so a directive's
// range refuses them, with Redis's "between" error); nullopt for anything else.
std::optional<uint64_t> ParseMemory(std::string_view text);

// A memory value as CONFIG REWRITE writes it (Redis's rewriteConfigFormatMemory): in gb, mb or kb
// when it is a whole number of them (1gb, 64mb, 3kb), else in bytes (3000, 0).
std::string FormatMemory(uint64_t bytes);

}  // namespace sluice::server
