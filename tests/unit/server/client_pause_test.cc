// CLIENT PAUSE's rules: how a pause during another combines (Redis 7.0's pauseClients), and
// which requests a WRITE or ALL pause holds.

#include "server/client_pause.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "server/client.h"
#include "server/commands/commands.h"

namespace sluice::server {
namespace {

TEST(ClientPauseTest, APauseDuringAnotherKeepsTheStricterModeAndTheLaterEnd) {
  ClientPause pause;
  EXPECT_FALSE(pause.Set());
  pause.Extend(PauseMode::kAll, 2000);
  pause.Extend(PauseMode::kWrite, 1000);
  EXPECT_EQ(pause.mode, PauseMode::kAll);
  EXPECT_EQ(pause.end_ms, 2000);
  pause.Extend(PauseMode::kWrite, 3000);
  EXPECT_EQ(pause.mode, PauseMode::kAll);
  EXPECT_EQ(pause.end_ms, 3000);
  EXPECT_TRUE(pause.InForce(2999));
  EXPECT_FALSE(pause.InForce(3000));
}

class PauseHoldsTest : public ::testing::Test {
 protected:
  PauseHoldsTest() {
    RegisterAllCommands(table_);
    client_.authenticated = true;
  }

  // The rule through the session's path: HoldRequest's lookup, then PauseHolds.
  bool Holds(PauseMode mode, std::vector<std::string_view> args) {
    return HoldRequest(mode, table_, client_, args, script_writes_);
  }

  CommandTable table_;
  Client client_;
  ScriptDeclaresWrites script_writes_;  // none: every script command by its own flags
};

TEST_F(PauseHoldsTest, WriteHoldsWhatMayChangeData) {
  for (auto args : std::vector<std::vector<std::string_view>>{
           {"set", "k", "v"}, {"INCR", "k"}, {"eval", "return 1", "0"}, {"fcall", "f", "0"},
           {"publish", "ch", "m"}, {"pfcount", "h"}, {"rl.tokenbucket", "k", "10", "1", "1000"},
           {"function", "flush"}}) {
    EXPECT_TRUE(Holds(PauseMode::kWrite, args)) << args[0];
  }
  for (auto args : std::vector<std::vector<std::string_view>>{
           {"get", "k"}, {"eval_ro", "return 1", "0"}, {"ping"}, {"config", "set", "timeout", "0"},
           {"client", "unpause"}, {"info"}, {"exec"}}) {
    EXPECT_FALSE(Holds(PauseMode::kWrite, args)) << args[0];
  }
  EXPECT_FALSE(Holds(PauseMode::kNone, {"set", "k", "v"}));
}

// A script that declares its flags stands for its command's, as Redis's evalGetCommandFlags:
// a no-writes one runs during a WRITE pause, one that may write is held, even under *_RO
// (where it then fails); one that declares nothing goes by the command's flags.
TEST_F(PauseHoldsTest, WriteJudgesAScriptByWhatItDeclares) {
  script_writes_ = [](const CommandSpec&, Args args) -> std::optional<bool> {
    if (args[1] == "reader") return false;
    if (args[1] == "writer") return true;
    return std::nullopt;
  };
  EXPECT_FALSE(Holds(PauseMode::kWrite, {"fcall", "reader", "0"}));
  EXPECT_FALSE(Holds(PauseMode::kWrite, {"evalsha", "reader", "0"}));
  EXPECT_TRUE(Holds(PauseMode::kWrite, {"fcall_ro", "writer", "0"}));
  EXPECT_TRUE(Holds(PauseMode::kWrite, {"eval", "undeclared", "0"}));
  EXPECT_FALSE(Holds(PauseMode::kWrite, {"eval_ro", "undeclared", "0"}));
  EXPECT_TRUE(Holds(PauseMode::kAll, {"fcall", "reader", "0"}));
  EXPECT_TRUE(Holds(PauseMode::kWrite, {"set", "reader", "v"})) << "only script commands ask";
  client_.in_multi = true;
  client_.multi_queue = {{"fcall", "reader", "0"}, {"get", "k"}};
  EXPECT_FALSE(Holds(PauseMode::kWrite, {"exec"}));
  client_.multi_queue.push_back({"fcall", "writer", "0"});
  EXPECT_TRUE(Holds(PauseMode::kWrite, {"exec"}));
}

TEST_F(PauseHoldsTest, AllHoldsEverythingButDebug) {
  EXPECT_TRUE(Holds(PauseMode::kAll, {"get", "k"}));
  EXPECT_TRUE(Holds(PauseMode::kAll, {"client", "unpause"}));
  EXPECT_FALSE(Holds(PauseMode::kAll, {"debug", "clock"}));
}

TEST_F(PauseHoldsTest, FailuresThatComeFirstAreNotHeld) {
  EXPECT_FALSE(Holds(PauseMode::kAll, {"nosuch"}));
  EXPECT_FALSE(Holds(PauseMode::kAll, {"get"}));  // wrong arity
  client_.authenticated = false;
  EXPECT_FALSE(Holds(PauseMode::kAll, {"get", "k"}));  // -NOAUTH at once
  EXPECT_TRUE(Holds(PauseMode::kAll, {"auth", "pw"}));
}

// The session's path (HoldRequest): whether a request is held and, when it is, CLIENT LIST's
// cmd= for it, a container's subcommand with it, "NULL" for an unknown subcommand; a request
// not held leaves cmd= alone (the dispatcher names it when it runs).
TEST_F(PauseHoldsTest, AHeldRequestIsNamedAsTheDispatcherNamesIt) {
  auto held_as = [&](PauseMode mode, std::vector<std::string_view> args) {
    client_.last_command = "before";
    client_.last_subcommand = "";
    const bool held = HoldRequest(mode, table_, client_, args, script_writes_);
    std::string name(client_.last_command);
    if (!client_.last_subcommand.empty()) name.append("|").append(client_.last_subcommand);
    return held ? name : "not held, cmd=" + name;
  };
  EXPECT_EQ(held_as(PauseMode::kWrite, {"SET", "k", "v"}), "set");
  EXPECT_EQ(held_as(PauseMode::kWrite, {"function", "FLUSH"}), "function|flush");
  EXPECT_EQ(held_as(PauseMode::kWrite, {"function", "LIST"}), "not held, cmd=before");
  EXPECT_EQ(held_as(PauseMode::kWrite, {"config", "set", "timeout", "0"}), "not held, cmd=before");
  EXPECT_EQ(held_as(PauseMode::kAll, {"client", "LIST"}), "client|list");
  EXPECT_EQ(held_as(PauseMode::kAll, {"command"}), "command");
  EXPECT_EQ(held_as(PauseMode::kAll, {"client", "nosuch"}), "NULL");
  EXPECT_EQ(held_as(PauseMode::kAll, {"nosuch", "x"}), "not held, cmd=before");
  EXPECT_EQ(held_as(PauseMode::kAll, {}), "not held, cmd=before");
}

TEST_F(PauseHoldsTest, ExecIsHeldWhenItsTransactionQueuedAWrite) {
  client_.in_multi = true;
  client_.multi_queue = {{"get", "k"}};
  EXPECT_FALSE(Holds(PauseMode::kWrite, {"exec"}));
  client_.multi_queue.push_back({"set", "k", "v"});
  EXPECT_TRUE(Holds(PauseMode::kWrite, {"exec"}));
}

}  // namespace
}  // namespace sluice::server
