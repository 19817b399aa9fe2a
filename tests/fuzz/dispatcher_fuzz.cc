// libFuzzer target: every command's argument parsing and execution, through the real
// dispatcher of a real server context (command table, RocksDB engine in a temporary
// directory, limiter queues, Lua scripting), replies captured as value trees.
//
// Input: a byte stream as a client sends it (RESP multibulk or inline commands, parsed with
// the real RequestParser). The database is emptied and the client reset before each input;
// the clock is frozen at a fixed instant (byte 0 moves it), so runs are reproducible. Scripts
// that run past a 2 ms lua-time-limit are killed. Commands that end the process or need a
// network (SHUTDOWN, MONITOR...) are answered by a fake ServerActions.

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "common/ascii.h"
#include "common/clock.h"
#include "resp/capturing_builder.h"
#include "resp/request_parser.h"
#include "server/acl/registry.h"
#include "server/client.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/config.h"
#include "server/dispatcher.h"
#include "server/limiter_queues.h"
#include "server/policy_registry.h"
#include "server/script_bridge.h"
#include "server/server_context.h"
#include "storage/engine.h"

namespace sluice::server {
namespace {

constexpr int64_t kStartUs = 1'700'000'000'000'000;

class FakeActions final : public ServerActions {
 public:
  std::vector<const Client*> ListClients() const override { return {}; }
  void VisitClients(const std::function<void(const Client&)>&) const override {}
  bool KillClient(uint64_t) override { return false; }
  size_t ConnectedClients() const override { return 1; }
  void RequestShutdown(ShutdownMode) override {}
  Status OnConfigChanged(const Config&) override { return Status::Ok(); }
  Status Save(bool) override { return Status::Ok(); }
  void OnClockChanged() override {}
  void CountKeysInBackground(uint64_t) override {}
  void AnswerBlocked(uint64_t, const std::function<void(resp::ReplyBuilder&)>&) override {}
  bool UnblockClient(uint64_t, bool) override { return false; }
  // Requests are dispatched one by one here, never held by a session.
  void StartClientPause(PauseMode, int64_t) override {}
  void EndClientPause() override {}
};

constexpr std::string_view kDirPrefix = "sluice-dispatcher-fuzz-";

// The harness lives until the process exits, so its directory outlives it: each run removes
// the directories of runs whose process is gone (on /dev/shm they would hold memory).
void RemoveDirectoriesOfEndedRuns(const std::filesystem::path& base) {
  std::error_code ec;
  std::filesystem::directory_iterator it(base, ec);
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(kDirPrefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + kDirPrefix.size(), nullptr, 10);
    std::error_code ignored;
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::filesystem::remove_all(it->path(), ignored);
    }
  }
}

struct Harness {
  Harness() {
    // On /dev/shm where there is one: the database is emptied (a synced write) per input.
    std::error_code ec;
    std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec)
                                     ? std::filesystem::path("/dev/shm")
                                     : std::filesystem::temp_directory_path();
    RemoveDirectoriesOfEndedRuns(base);
    dir = base / (std::string(kDirPrefix) + std::to_string(::getpid()));
    OpenFreshEngine();
    clock.Freeze(kStartUs);
    RegisterAllCommands(commands);
    acl = std::make_unique<AclRegistry>(commands);
    ctx.acl = acl.get();
    config.lua_time_limit = 2;  // ms: a looping script costs little
    config.lua_memory_limit = 32 << 20;
    ctx.clock = &clock;
    ctx.config = &config;
    ctx.commands = &commands;
    ctx.actions = &actions;
    ctx.dispatcher = &dispatcher;
    queues = std::make_unique<LimiterQueues>(
        &ctx.engine, [](uint64_t, const StatusOr<algorithms::Verdict>&) {},
        [](const LimiterCall&, LimiterEvent) {}, [] {});
    ctx.limiter_queues = queues.get();
    // Busy past lua-time-limit: kill the script (a fuzzed `while true do end`).
    scripts = std::make_unique<ScriptBridge>(
        ctx, [this] { scripts->engine().Kill(); }, [] {});
    ctx.scripts = scripts.get();
    pristine_config = config;
  }

  ~Harness() {
    scripts.reset();
    queues.reset();
    engine.reset();
    std::filesystem::remove_all(dir);
  }

  void OpenFreshEngine() {
    engine.reset();
    std::filesystem::remove_all(dir);
    storage::EngineOptions options;
    options.dir = dir.string();
    options.write_buffer_bytes = 4 << 20;
    auto opened = storage::Engine::Open(options, &clock);
    if (!opened.ok()) std::abort();
    engine = std::move(opened).value();
    ctx.engine = engine.get();
  }

  void Reset(uint8_t clock_step) {
    config = pristine_config;
    scripts->ApplyConfig();
    clock.Freeze(kStartUs + static_cast<int64_t>(clock_step) * 997'000);
    engine->DiscardStaged();
    ctx.policies = PolicyRegistry();  // RL.POLICY SET of an earlier input is forgotten
    // So are its function libraries, and its ACL users when it may have changed them (a new
    // registry for every input would take three quarters of the fuzzer's time).
    scripts->functions().Flush();
    if (acl_touched) {
      acl = std::make_unique<AclRegistry>(commands);
      ctx.acl = acl.get();
      acl_touched = false;
    }
    // An empty key space: delete the keys one by one (cheap for the few keys an input makes;
    // FLUSHALL's range deletions would pile up and slow every read down), and start a new
    // database now and then so tombstones and orphaned elements do not pile up either.
    if (++inputs % 1024 == 0) {
      OpenFreshEngine();
      return;
    }
    auto keys = engine->Keys("*", 0);  // as of time 0 nothing has expired: every key
    if (!keys.ok()) std::abort();
    for (const std::string& key : *keys) engine->Delete(key);
    if (!engine->Commit(false).ok()) std::abort();
  }

  uint64_t inputs = 0;
  bool acl_touched = false;  // the last input said ACL or requirepass

  std::filesystem::path dir;
  FreezableClock clock;
  Config config;
  Config pristine_config;
  CommandTable commands;
  std::unique_ptr<AclRegistry> acl;
  FakeActions actions;
  std::unique_ptr<storage::Engine> engine;
  ServerContext ctx;
  Dispatcher dispatcher{ctx};
  std::unique_ptr<LimiterQueues> queues;
  std::unique_ptr<ScriptBridge> scripts;
};

bool ContainsIgnoreCase(std::string_view text, std::string_view word) {
  for (size_t i = 0; i + word.size() <= text.size(); ++i) {
    if (EqualsIgnoreCase(text.substr(i, word.size()), word)) return true;
  }
  return false;
}

Harness& GetHarness() {
  static Harness* harness = new Harness();  // lives for the process, as the server would
  return *harness;
}

}  // namespace
}  // namespace sluice::server

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  using namespace sluice::server;
  if (size < 1) return 0;
  Harness& h = GetHarness();
  h.Reset(data[0]);
  std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);
  h.acl_touched = ContainsIgnoreCase(stream, "acl") || ContainsIgnoreCase(stream, "requirepass");

  Client client;
  client.user = h.acl->default_user();
  client.id = 1;
  client.authenticated = true;
  client.is_local = true;
  client.addr = "127.0.0.1:1";
  resp::RequestParser parser;
  std::vector<std::string_view> args;
  resp::CapturingReplyBuilder reply;
  size_t pos = 0;
  int commands = 0;
  while (pos < stream.size() && commands < 64) {
    size_t consumed = 0;
    parser.set_authenticated(client.authenticated);
    auto result = parser.Parse(stream.substr(pos), &consumed, &args);
    if (result != resp::RequestParser::Result::kOk) break;
    pos += consumed;
    if (args.empty()) continue;
    ++commands;
    reply.set_protocol(client.protocol);
    h.dispatcher.Dispatch(client, args, reply);
    (void)reply.TakeAll();
    if (client.blocked) {  // a BLOCK request parked: give up on it, as a disconnect does
      h.queues->CancelClient(client.id);
      client.blocked = false;
    }
    if (client.close_after_reply) break;
    (void)h.engine->Commit(false);
  }
  h.queues->CancelClient(client.id);
  h.ctx.watches.UnwatchAll(&client);
  h.engine->DiscardStaged();
  return 0;
}
