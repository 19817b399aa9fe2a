#pragma once

// A ScriptHost for engine tests: redis.call answers from a table of canned replies (plus a
// few commands with behaviour), and every call, busy tick and log line is recorded.

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "resp/capturing_builder.h"
#include "resp/value.h"
#include "scripting/engine.h"
#include "scripting/script_host.h"
#include "scripting/sha1.h"

namespace sluice::scripting::testing {

class FakeHost : public ScriptHost {
 public:
  // Canned replies by command name (lower case), whatever the arguments.
  std::map<std::string, resp::Value> replies;
  std::vector<std::vector<std::string>> calls;
  std::vector<resp::ProtocolVersion> call_protocols;
  std::vector<std::pair<LogLevel, std::string>> logs;
  int busy_ticks = 0;
  int first_busy_ticks = 0;
  std::function<void()> on_busy;  // e.g. kill the script

  resp::Value Call(std::span<const std::string_view> args,
                   resp::ProtocolVersion protocol) override {
    calls.emplace_back(args.begin(), args.end());
    call_protocols.push_back(protocol);
    std::string name(args[0]);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "echo" && args.size() == 2) return resp::Value::Bulk(args[1]);
    if (name == "set" && args.size() == 3) {
      store[std::string(args[1])] = std::string(args[2]);
      return resp::Value::Simple("OK");
    }
    if (name == "get" && args.size() == 2) {
      auto it = store.find(std::string(args[1]));
      return it == store.end() ? resp::Value::Null() : resp::Value::Bulk(it->second);
    }
    auto it = replies.find(name);
    if (it != replies.end()) return it->second;
    return resp::Value::Error("ERR Unknown Redis command called from script");
  }

  std::optional<bool> AclAllows(std::span<const std::string_view> args) override {
    const std::string name(args[0]);
    if (name != "get" && name != "set" && replies.count(name) == 0) return std::nullopt;
    return name != "set";  // as a user allowed everything but SET
  }

  void WhileBusy(int64_t, bool first) override {
    ++busy_ticks;
    if (first) ++first_busy_ticks;
    if (on_busy) on_busy();
  }

  void Log(LogLevel level, std::string_view message) override {
    logs.emplace_back(level, std::string(message));
  }

  std::map<std::string, std::string> store;
};

// Compiles (or finds) `body` and runs it; the reply as a tree, a compile error as an error
// value "ERR ...".
inline resp::Value Eval(ScriptEngine& engine, std::string_view body,
                        std::vector<std::string_view> keys = {},
                        std::vector<std::string_view> argv = {},
                        resp::ProtocolVersion caller = resp::ProtocolVersion::kResp2) {
  resp::CapturingReplyBuilder reply(caller);
  StatusOr<const Script*> script = engine.Load(body);
  if (!script.ok()) {
    reply.Error(script.status());
  } else {
    engine.Run(**script, keys, argv, reply);
  }
  return reply.Take();
}

// The "script: <sha>, on @user_script:<line>." suffix Redis appends to script errors.
inline std::string Where(std::string_view body, int line = 1) {
  return " script: " + Sha1Hex(body) + ", on @user_script:" + std::to_string(line) + ".";
}

}  // namespace sluice::scripting::testing
