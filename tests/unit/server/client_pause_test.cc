// CLIENT PAUSE's rules: how a pause during another combines (Redis 7.0's pauseClients), and
// which requests a WRITE or ALL pause holds.

#include "server/client_pause.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "server/client.h"
#include "server/dispatcher.h"
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

  bool Holds(PauseMode mode, std::vector<std::string_view> args) {
    return PauseHolds(mode, table_, client_, table_.Find(args[0]), args);
  }

  CommandTable table_;
  Client client_;
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

// CLIENT LIST's cmd= of a held request, from the lookup the rule made: a container's
// subcommand looked up with it, "NULL" for an unknown command or subcommand.
TEST_F(PauseHoldsTest, AHeldRequestIsNamedAsTheDispatcherNamesIt) {
  auto named = [&](std::vector<std::string_view> args) {
    const CommandSpec* spec = table_.Find(args[0]);
    NoteLastCommand(client_, spec, LookupRequestSubcommand(spec, args));
    std::string name(client_.last_command);
    if (!client_.last_subcommand.empty()) name.append("|").append(client_.last_subcommand);
    return name;
  };
  EXPECT_EQ(named({"SET", "k", "v"}), "set");
  EXPECT_EQ(named({"client", "LIST"}), "client|list");
  EXPECT_EQ(named({"client"}), "client");
  EXPECT_EQ(named({"client", "nosuch"}), "NULL");
  EXPECT_EQ(named({"nosuch", "x"}), "NULL");
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
