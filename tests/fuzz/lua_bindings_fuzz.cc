// libFuzzer target: the Lua engine's bindings (struct, cjson, cmsgpack, bit, redis.*) and the
// Lua <-> reply conversions, on the real ScriptEngine with its sandbox.
//
// Input: byte 0 picks a mode. Modes 0..5 run a fixed script on fuzzed data (ARGV[1], and
// ARGV[2] split off at the first NUL): cjson.decode, cmsgpack.unpack, struct.unpack with a
// fuzzed format, struct.pack with a fuzzed format, round trips through cjson and cmsgpack.
// Mode 6 runs the rest of the input as a script body (the sandbox, redis.call conversions:
// the host echoes every call's arguments back as an array). lua-time-limit is 20 ms and the
// host kills a script at its first busy tick; lua-memory-limit is 32 MB.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "resp/capturing_builder.h"
#include "resp/value.h"
#include "scripting/engine.h"
#include "scripting/script_host.h"

namespace {

using sluice::resp::Value;

class EchoHost final : public sluice::scripting::ScriptHost {
 public:
  Value Call(std::span<const std::string_view> args, sluice::resp::ProtocolVersion) override {
    std::vector<Value> elements;
    for (std::string_view arg : args) elements.push_back(Value::Bulk(arg));
    if (!args.empty() && args[0] == "err") return Value::Error("ERR fuzz");
    if (!args.empty() && args[0] == "int") return Value::Int(static_cast<int64_t>(args.size()));
    if (!args.empty() && args[0] == "map") return Value::Map(std::move(elements));
    return Value::Array(std::move(elements));
  }
  void WhileBusy(int64_t, bool) override {
    if (engine != nullptr) engine->Kill();
  }
  std::optional<bool> AclAllows(std::span<const std::string_view> args) override {
    if (args[0] != "get") return std::nullopt;
    return true;
  }
  void Log(sluice::scripting::LogLevel, std::string_view) override {}

  sluice::scripting::ScriptEngine* engine = nullptr;
};

constexpr const char* kScripts[] = {
    "return cjson.encode(cjson.decode(ARGV[1]))",
    "local t = cmsgpack.unpack(ARGV[1]) return cmsgpack.pack(t)",
    "return {struct.unpack(ARGV[2], ARGV[1])}",
    "return struct.pack(ARGV[2], ARGV[1], ARGV[1], 1, 2, 3)",
    "local ok, v = pcall(cjson.decode, ARGV[1]) if ok then return cmsgpack.pack(v) end "
    "return redis.error_reply(v)",
    "local ok, v = pcall(cmsgpack.unpack, ARGV[1]) if ok then return cjson.encode(v) end "
    "return redis.status_reply(v)",
};

struct Harness {
  Harness() : engine(&host) {
    host.engine = &engine;
    engine.set_time_limit_ms(20);
    engine.set_memory_limit(32 << 20);
  }
  EchoHost host;
  sluice::scripting::ScriptEngine engine;
};

Harness& GetHarness() {
  static Harness* harness = new Harness();
  return *harness;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  Harness& h = GetHarness();
  const size_t modes = sizeof(kScripts) / sizeof(kScripts[0]) + 1;
  const size_t mode = data[0] % modes;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);

  std::string body;
  std::vector<std::string_view> argv;
  if (mode < modes - 1) {
    body = kScripts[mode];
    size_t nul = rest.find('\0');
    argv.push_back(rest.substr(0, nul));
    argv.push_back(nul == std::string_view::npos ? std::string_view("i") : rest.substr(nul + 1));
  } else {
    body.assign(rest);
    argv = {"a", "1", "-2.5"};
  }
  // Fuzzed bodies would fill the script cache: start fresh now and then.
  if (h.engine.script_count() > 512) h.engine.Flush();
  auto script = h.engine.Load(body);
  if (!script.ok()) return 0;
  std::vector<std::string_view> keys = {"k1", "k2"};
  sluice::resp::CapturingReplyBuilder reply;
  h.engine.Run(**script, keys, argv, reply);
  (void)reply.TakeAll();
  return 0;
}
