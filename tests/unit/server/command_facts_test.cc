// The facts the dispatcher and the ACL read from a command's registration instead of comparing
// its name with lists: checked over the server's real table, each against a description of
// the commands that does not use the flag, so that a command registered without its flag (or
// in the wrong group) fails here.

#include <gtest/gtest.h>

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "server/acl/check.h"
#include "server/acl/registry.h"
#include "server/commands/commands.h"

namespace sluice::server {
namespace {

class CommandFactsTest : public ::testing::Test {
 protected:
  CommandFactsTest() { RegisterAllCommands(table_); }

  // What the ACL's stored flags for the command need: {first key, later keys}.
  std::pair<int, int> KeysOf(const CommandSpec& spec) {
    const AclKeyAccess& keys = acl().ids().entry(spec.index).keys;
    return {AclKeyNeedOf(keys.first_flags), AclKeyNeedOf(keys.rest_flags)};
  }
  AclRegistry& acl() {
    if (!acl_) acl_ = std::make_unique<AclRegistry>(table_);
    return *acl_;
  }
  static bool Has(const CommandSpec& spec, CommandFlags flag) { return HasFlag(spec.flags, flag); }

  CommandTable table_;
  std::unique_ptr<AclRegistry> acl_;
};

// AclKeyNeed bits, as ints so that a failure prints numbers.
constexpr int kR = kAclNeedRead;
constexpr int kW = kAclNeedWrite;
constexpr int kRW = kAclNeedRead | kAclNeedWrite;

// sluice's limiter commands (RL.*, CL.THROTTLE) read a key's state and write it back: a user
// needs %RW~ on it, whatever command is added to the family. RL.RESET only deletes.
TEST_F(CommandFactsTest, EveryLimiterCommandNeedsReadAndWriteOfItsKey) {
  int checked = 0;
  for (const CommandSpec* spec : table_.All()) {
    const bool limiter = spec->name.starts_with("rl.") || spec->name.starts_with("cl.");
    if (!limiter || spec->first_key <= 0 || !Has(*spec, CommandFlags::kWrite)) continue;
    if (spec->name == "rl.reset") {
      EXPECT_EQ(KeysOf(*spec), std::make_pair(kW, kW));
      continue;
    }
    EXPECT_EQ(KeysOf(*spec), std::make_pair(kRW, kRW)) << spec->name;
    ++checked;
  }
  EXPECT_GE(checked, 9);  // the six RL.<algorithm>, RL.SMOOTH, RL.TAKE, CL.THROTTLE
  EXPECT_EQ(KeysOf(*table_.Find("rl.status")), std::make_pair(kR, kR));
}

// Redis's blocking pops and list moves: the key waited on is read and written; a list move's
// destination is only written (its key spec: RW INSERT).
TEST_F(CommandFactsTest, BlockingWritesAndListMovesReadWhatTheyTake) {
  for (const CommandSpec* spec : table_.All()) {
    if (!Has(*spec, CommandFlags::kBlocking) || !Has(*spec, CommandFlags::kWrite)) continue;
    EXPECT_EQ(KeysOf(*spec).first, kRW) << spec->name;
  }
  for (std::string_view name : {"lmove", "rpoplpush", "blmove", "brpoplpush"}) {
    const CommandSpec* spec = table_.Find(name);
    EXPECT_TRUE(Has(*spec, CommandFlags::kListMove)) << name;
    EXPECT_EQ(KeysOf(*spec), std::make_pair(kRW, kW)) << name;
  }
  // A list command naming a source and a destination is a list move (the dispatcher signals
  // the destination first, as Redis).
  for (const CommandSpec* spec : table_.All()) {
    const bool two_lists = spec->group == "list" && spec->first_key == 1 && spec->last_key == 2;
    EXPECT_EQ(Has(*spec, CommandFlags::kListMove), two_lists) << spec->name;
  }
}

// EVAL, EVALSHA, FCALL and their _RO forms are the scripting commands with keys after a
// count: each runs a script, whose keys need read and write unless it is read-only.
TEST_F(CommandFactsTest, EveryScriptCallIsMarkedAndItsKeysFollowItsMode) {
  int scripts = 0;
  for (const CommandSpec* spec : table_.All()) {
    const bool script_call =
        spec->group == "scripting" && Has(*spec, CommandFlags::kMovableKeys);
    EXPECT_EQ(Has(*spec, CommandFlags::kRunsScript), script_call) << spec->name;
    if (!script_call) continue;
    ++scripts;
    const bool read_only = spec->name.ends_with("_ro");
    EXPECT_EQ(KeysOf(*spec), read_only ? std::make_pair(kR, kR) : std::make_pair(kRW, kRW))
        << spec->name;
  }
  EXPECT_EQ(scripts, 6);
}

// Every command that publishes or subscribes to a channel has its channels checked against a
// restricted user's channel patterns; the others (UNSUBSCRIBE, PUBSUB CHANNELS...) never are.
TEST_F(CommandFactsTest, EveryCommandThatNamesChannelsHasThemChecked) {
  const std::vector<std::string_view> rules = {"on", "nopass", "+@all", "allkeys", "&ch*"};
  ASSERT_TRUE(acl().SetUser("u", rules).ok());
  const std::shared_ptr<const AclUser> user = acl().Find("u");
  int publishers = 0;
  int subscribers = 0;
  for (const CommandSpec* spec : table_.All()) {
    // Redis propagates a publication: the pub/sub commands that may replicate publish.
    const bool publishes =
        Has(*spec, CommandFlags::kPubSub) && Has(*spec, CommandFlags::kMayReplicate);
    const bool subscribes =
        spec->name.ends_with("subscribe") && !spec->name.ends_with("unsubscribe");
    EXPECT_EQ(Has(*spec, CommandFlags::kChannelPublish), publishes) << spec->name;
    EXPECT_EQ(Has(*spec, CommandFlags::kChannelSubscribe), subscribes) << spec->name;
    EXPECT_EQ(Has(*spec, CommandFlags::kChannelPattern), spec->name == "psubscribe")
        << spec->name;
    if (spec->group != "pubsub" || !spec->subcommands.empty()) continue;
    // A pattern must be one of the user's to the letter; a channel matches one.
    const std::string_view allowed = spec->name == "psubscribe" ? "ch*" : "ch1";
    std::vector<std::string_view> args = {spec->name, allowed, "other"};
    if (publishes) args = {spec->name, "other", "message"};
    const AclVerdict verdict = CheckAcl(*user, acl().ids(), *spec, nullptr, args);
    if (publishes || subscribes) {
      EXPECT_EQ(verdict.denied, AclVerdict::Denied::kChannel) << spec->name;
      EXPECT_EQ(verdict.arg, publishes ? 1u : 2u) << spec->name;
      ++(publishes ? publishers : subscribers);
    } else {
      EXPECT_TRUE(verdict.ok()) << spec->name;
    }
  }
  EXPECT_EQ(publishers, 2);   // PUBLISH, SPUBLISH
  EXPECT_EQ(subscribers, 3);  // SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE
  // A publication's message is no channel: only args[1] is checked.
  EXPECT_TRUE(CheckAcl(*user, acl().ids(), *table_.Find("publish"), nullptr,
                       std::vector<std::string_view>{"publish", "ch1", "other"})
                  .ok());
}

}  // namespace
}  // namespace sluice::server
