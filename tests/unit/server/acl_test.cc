// The ACL: rule parsing and its errors, the rules written back (ACL LIST), and the permission
// decisions, on the server's real command table. Expected texts are redis-server 7.0's.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "server/acl/check.h"
#include "server/acl/registry.h"
#include "server/commands/commands.h"

namespace sluice::server {
namespace {

class AclTest : public ::testing::Test {
 protected:
  AclTest() { RegisterAllCommands(table_); }

  // ACL SETUSER name rules...; the error message, or "" on success.
  std::string Set(std::string_view name, std::vector<std::string_view> rules) {
    Status status = acl().SetUser(name, rules);
    return status.ok() ? "" : status.message();
  }
  std::string List(std::string_view name) {
    return DescribeAclUser(*acl().Find(name), acl().ids());
  }
  // The verdict for `user` running `args`.
  AclVerdict::Denied Check(std::string_view user, std::vector<std::string_view> args) {
    const CommandSpec* spec = table_.Find(args[0]);
    EXPECT_NE(spec, nullptr) << args[0];
    const Subcommand* sub =
        HasSubcommand(*spec, args) ? LookupSubcommand(spec->subcommands, args[1]) : nullptr;
    return CheckAcl(*acl().Find(user), acl().ids(), *spec, sub, args).denied;
  }
  AclRegistry& acl() {
    if (!acl_) acl_ = std::make_unique<AclRegistry>(table_);
    return *acl_;
  }

  CommandTable table_;
  std::unique_ptr<AclRegistry> acl_;
};

using Denied = AclVerdict::Denied;

TEST_F(AclTest, DefaultUserMayDoEverything) {
  EXPECT_EQ(List("default"), "on nopass ~* &* +@all");
  EXPECT_TRUE(acl().default_user()->unrestricted);
  EXPECT_TRUE(acl().DefaultNeedsNoAuth());
}

TEST_F(AclTest, RequirePassBecomesTheDefaultUsersPassword) {
  acl().SetRequirePass("p1");
  EXPECT_EQ(List("default"),
            "on #f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a ~* &* +@all");
  EXPECT_FALSE(acl().DefaultNeedsNoAuth());
  EXPECT_NE(acl().Authenticate("default", "p1"), nullptr);
  EXPECT_EQ(acl().Authenticate("default", "p2"), nullptr);
  acl().SetRequirePass("");
  EXPECT_TRUE(acl().DefaultNeedsNoAuth());
}

TEST_F(AclTest, NewUserIsOffWithNothingAllowed) {
  EXPECT_EQ(Set("bob", {}), "");
  EXPECT_EQ(List("bob"), "off resetchannels -@all");
  EXPECT_FALSE(acl().Find("bob")->unrestricted);
  EXPECT_EQ(Set("bob", {"reset"}), "");
  EXPECT_EQ(List("bob"), "off sanitize-payload resetchannels -@all");
}

// The dispatcher's one branch: a user is unrestricted exactly while it may run every command
// on every key and channel.
TEST_F(AclTest, UnrestrictedFollowsTheRules) {
  ASSERT_EQ(Set("u", {"on", "allkeys", "allchannels", "+@all"}), "");
  EXPECT_TRUE(acl().Find("u")->unrestricted);
  ASSERT_EQ(Set("u", {"-config|get"}), "");
  EXPECT_FALSE(acl().Find("u")->unrestricted);
  ASSERT_EQ(Set("u", {"+config|get"}), "");
  EXPECT_TRUE(acl().Find("u")->unrestricted);
  ASSERT_EQ(Set("u", {"resetchannels"}), "");
  EXPECT_FALSE(acl().Find("u")->unrestricted);
  ASSERT_EQ(Set("u", {"&*", "resetkeys", "%R~*"}), "");  // every key, only to read: checked
  EXPECT_FALSE(acl().Find("u")->unrestricted);
  ASSERT_EQ(Set("u", {"allkeys"}), "");
  EXPECT_TRUE(acl().Find("u")->unrestricted);
}

TEST_F(AclTest, RulesAreWrittenBackAsRedisDoes) {
  struct Row {
    std::vector<std::string_view> rules;
    std::string listed;
  };
  const Row rows[] = {
      {{"+@all", "-get"}, "off resetchannels +@all -get"},
      {{"-@all", "+client|id"}, "off resetchannels -@all +client|id"},
      {{"allcommands", "-@all", "+client|id"}, "off resetchannels -@all +client|id"},
      {{"+@all", "-config", "+config|get"}, "off resetchannels +@all -config +config|get"},
      {{"+@all", "-@all"}, "off resetchannels -@all"},
      {{"%W~w*", "%R~r*", "~x", "%RW~y", "&a", "allchannels"}, "off %W~w* %R~r* ~x ~y &* -@all"},
      {{"%R~a", "%W~a"}, "off ~a resetchannels -@all"},
      {{"allkeys", "resetkeys", "~a", "&c1", "&c2", "&c1"}, "off ~a resetchannels &c1 &c2 -@all"},
      {{">a", ">b", ">a", "<b"},
       "off #ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb resetchannels -@all"},
      {{">x", "nopass"}, "off nopass resetchannels -@all"},
      {{"nopass", ">x"},
       "off #2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 resetchannels -@all"},
      {{"on", "allkeys", "allchannels", "allcommands"}, "on ~* &* +@all"},
  };
  for (const Row& row : rows) {
    acl_.reset();
    EXPECT_EQ(Set("u", row.rules), "") << row.listed;
    EXPECT_EQ(List("u"), row.listed);
  }
}

TEST_F(AclTest, BadRulesGiveRedisReasonsAndChangeNothing) {
  ASSERT_EQ(Set("u", {"on", "allkeys", "allchannels"}), "");
  const std::string before = List("u");
  const std::pair<std::string_view, std::string_view> rows[] = {
      {"~x",
       "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not "
       "have any effect. Try 'resetkeys' to start with an empty list of patterns"},
      {"&x",
       "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does "
       "not have any effect. Try 'resetchannels' to start with an empty list of channels"},
      {"<nope", "The password you are trying to remove from the user does not exist"},
      {"#abc",
       "The password hash must be exactly 64 characters and contain only lowercase "
       "hexadecimal characters"},
      {"+foo", "Unknown command or category name in ACL"},
      {"+@foo", "Unknown command or category name in ACL"},
      {"+config|nosuch", "Unknown command or category name in ACL"},
      {"bar", "Syntax error"},
      {"(~x +get)", "Selectors are not supported by sluice"},
  };
  for (const auto& [rule, reason] : rows) {
    EXPECT_EQ(Set("u", {"off", rule}),
              "Error in ACL SETUSER modifier '" + std::string(rule) + "': " + std::string(reason));
    EXPECT_EQ(List("u"), before) << rule;  // "off" before the bad rule is not kept either
  }
  ASSERT_EQ(Set("u", {"resetkeys"}), "");
  EXPECT_EQ(Set("u", {"%X~a"}), "Error in ACL SETUSER modifier '%X~a': Syntax error");
  EXPECT_EQ(Set("u", {"%RR~a"}), "Error in ACL SETUSER modifier '%RR~a': Syntax error");
  // Neither R nor W is an error; no "~" is the empty pattern, as Redis.
  EXPECT_EQ(Set("u", {"%~a"}), "Error in ACL SETUSER modifier '%~a': Syntax error");
  ASSERT_EQ(Set("u", {"%R", "%W~"}), "");
  EXPECT_EQ(DescribeAclKeys(*acl().Find("u")), "~");
}

// Each key needs what Redis 7.0's key spec flags say: R for a value read, W for one written,
// neither for a key only looked at; a source and a destination each their own.
TEST_F(AclTest, KeysNeedWhatTheirKeySpecsSay) {
  ASSERT_EQ(Set("kp", {"on", "nopass", "+@all", "%R~r*", "%W~w*", "~rw*"}), "");
  EXPECT_EQ(Check("kp", {"get", "r1"}), Denied::kNone);
  EXPECT_EQ(Check("kp", {"get", "w1"}), Denied::kKey);
  EXPECT_EQ(Check("kp", {"lpush", "w1", "a"}), Denied::kNone);  // INSERT only
  EXPECT_EQ(Check("kp", {"incr", "w1"}), Denied::kKey);         // ACCESS and UPDATE
  EXPECT_EQ(Check("kp", {"incr", "rw1"}), Denied::kNone);
  EXPECT_EQ(Check("kp", {"exists", "r1", "w1"}), Denied::kNone);  // neither
  EXPECT_EQ(Check("kp", {"exists", "x"}), Denied::kKey);           // but a pattern must match
  EXPECT_EQ(Check("kp", {"copy", "r1", "w1"}), Denied::kNone);
  EXPECT_EQ(Check("kp", {"copy", "w1", "r1"}), Denied::kKey);
  EXPECT_EQ(Check("kp", {"sinterstore", "w1", "r1", "r2"}), Denied::kNone);
  EXPECT_EQ(Check("kp", {"sort", "r1", "store", "w1"}), Denied::kNone);
  EXPECT_EQ(Check("kp", {"set", "w1", "v"}), Denied::kNone);
  EXPECT_EQ(Check("kp", {"set", "w1", "v", "get"}), Denied::kKey);
  EXPECT_EQ(Check("kp", {"bitfield", "r1", "get", "u8", "0"}), Denied::kNone);
  EXPECT_EQ(Check("kp", {"bitfield", "r1", "set", "u8", "0", "1"}), Denied::kKey);
  EXPECT_EQ(Check("kp", {"object", "encoding", "w1"}), Denied::kNone);
  EXPECT_EQ(Check("kp", {"object", "encoding", "x"}), Denied::kKey);
  EXPECT_EQ(Check("kp", {"rl.tokenbucket", "w1", "10", "1", "1"}), Denied::kKey);
  EXPECT_EQ(Check("kp", {"rl.tokenbucket", "rw1", "10", "1", "1"}), Denied::kNone);
}

TEST_F(AclTest, CommandsKeysAndChannelsAreChecked) {
  ASSERT_EQ(Set("carol", {"on", ">pw", "~k*", "%R~r*", "&ch*", "+get", "+set", "+publish",
                          "+psubscribe", "+config|get", "+mget"}),
            "");
  EXPECT_EQ(Check("carol", {"get", "k1"}), Denied::kNone);
  EXPECT_EQ(Check("carol", {"get", "r1"}), Denied::kNone);
  EXPECT_EQ(Check("carol", {"get", "x"}), Denied::kKey);
  EXPECT_EQ(Check("carol", {"set", "r1", "v"}), Denied::kKey);  // read-only pattern
  EXPECT_EQ(Check("carol", {"set", "k1", "v"}), Denied::kNone);
  EXPECT_EQ(Check("carol", {"mget", "k1", "r2", "x"}), Denied::kKey);
  EXPECT_EQ(Check("carol", {"del", "k1"}), Denied::kCommand);
  EXPECT_EQ(Check("carol", {"config", "get", "maxclients"}), Denied::kNone);
  EXPECT_EQ(Check("carol", {"config", "set", "maxclients", "5"}), Denied::kCommand);
  EXPECT_EQ(Check("carol", {"publish", "chx", "m"}), Denied::kNone);
  EXPECT_EQ(Check("carol", {"publish", "other", "m"}), Denied::kChannel);
  // A pattern subscription must be one of the user's patterns to the letter.
  EXPECT_EQ(Check("carol", {"psubscribe", "ch*"}), Denied::kNone);
  EXPECT_EQ(Check("carol", {"psubscribe", "chx*"}), Denied::kChannel);
  // Only the AUTH check lets a user in: a disabled user or a wrong password do not.
  EXPECT_NE(acl().Authenticate("carol", "pw"), nullptr);
  EXPECT_EQ(acl().Authenticate("carol", "nope"), nullptr);
  ASSERT_EQ(Set("carol", {"off"}), "");
  EXPECT_EQ(acl().Authenticate("carol", "pw"), nullptr);
}

TEST_F(AclTest, KeysAfterACountAreChecked) {
  ASSERT_EQ(Set("lua", {"on", "nopass", "~a*", "+eval"}), "");
  EXPECT_EQ(Check("lua", {"eval", "return 1", "1", "a1"}), Denied::kNone);
  const CommandSpec* eval = table_.Find("eval");
  std::vector<std::string_view> args = {"eval", "return 1", "2", "a1", "b1"};
  const AclVerdict verdict = CheckAcl(*acl().Find("lua"), acl().ids(), *eval, nullptr, args);
  EXPECT_EQ(verdict.denied, Denied::kKey);
  EXPECT_EQ(verdict.arg, 4u);
  EXPECT_EQ(AclDeniedDryRunMessage(verdict, *eval, nullptr, args),
            "This user has no permissions to access the 'b1' key");
}

TEST_F(AclTest, ACategoryCoversTheLimiterCommands) {
  ASSERT_EQ(Set("app", {"on", "nopass", "allkeys", "-@all", "+@write"}), "");
  EXPECT_EQ(Check("app", {"rl.tokenbucket", "k", "10", "1", "1"}), Denied::kNone);
  EXPECT_EQ(Check("app", {"cl.throttle", "k", "10", "1", "1"}), Denied::kNone);
  ASSERT_EQ(Set("app", {"-@write", "+@read"}), "");
  EXPECT_EQ(Check("app", {"rl.tokenbucket", "k", "10", "1", "1"}), Denied::kCommand);
  EXPECT_EQ(Check("app", {"rl.status", "k", "p"}), Denied::kNone);
}

TEST_F(AclTest, DeniedMessagesAreRedisTexts) {
  const CommandSpec* config = table_.Find("config");
  const Subcommand* get = LookupSubcommand(config->subcommands, "get");
  EXPECT_EQ(AclDeniedMessage({Denied::kCommand, 0}, *config, get),
            "this user has no permissions to run the 'config|get' command");
  EXPECT_EQ(AclDeniedMessage({Denied::kKey, 1}, *config, get),
            "this user has no permissions to access one of the keys used as arguments");
  EXPECT_EQ(AclDeniedScriptMessage({Denied::kCommand, 0}),
            "The user executing the script can't run this command or subcommand");
}

TEST_F(AclTest, ConfigUsersAreDefinedOnce) {
  EXPECT_TRUE(AddConfigUser(acl(), {"limiter", "on", ">secret", "~*", "+@all"}).ok());
  EXPECT_NE(acl().Authenticate("limiter", "secret"), nullptr);
  Status again = AddConfigUser(acl(), {"limiter", "off"});
  EXPECT_EQ(again.message(),
            "user 'limiter': Duplicate user found. A user can only be defined once in config "
            "files");
  EXPECT_EQ(AddConfigUser(acl(), {"a b", "on"}).message(),
            "user 'a b': Usernames can't contain spaces or null characters");
  EXPECT_EQ(AddConfigUser(acl(), {"x", "bogus"}).message(),
            "user 'x': Error in ACL SETUSER modifier 'bogus': Syntax error");
}

// Redis resets the default user before its config line; sluice starts it over as a new user, so
// the line CONFIG REWRITE writes (ACL LIST's rules) gives back exactly the user it described.
TEST_F(AclTest, DefaultUsersConfigLineDefinesItAnew) {
  acl().SetRequirePass("start");
  ASSERT_EQ(Set("default", {"resetkeys", "~a*", "-@all", "+get", ">other"}), "");
  const std::string described = List("default");
  EXPECT_EQ(described,
            "on #cced28c6dc3f99c2396a5eaad732bf6b28142335892b1cd0e6af6cdb53f5ccfa "
            "#d9298a10d1b0735837dc4bd85dac641b0f3cef27a47e5d53a54f2f3f5b2fcffa ~a* &* -@all +get");
  // A restart: requirepass first, then the config's user lines.
  CommandTable table;
  RegisterAllCommands(table);
  AclRegistry restarted(table);
  restarted.SetRequirePass("start");
  std::vector<std::string> line = {"default"};
  for (size_t start = 0; start < described.size();) {
    const size_t end = std::min(described.find(' ', start), described.size());
    line.push_back(described.substr(start, end - start));
    start = end + 1;
  }
  ASSERT_TRUE(AddConfigUser(restarted, line).ok());
  // The same user, and reset's sanitize-payload, as Redis resets the default user first.
  EXPECT_EQ(DescribeAclUser(*restarted.Find("default"), restarted.ids()),
            "on sanitize-payload " + described.substr(3));
}

TEST_F(AclTest, DeletingLeavesDefault) {
  ASSERT_EQ(Set("u", {}), "");
  EXPECT_FALSE(acl().DeleteUser("default"));
  EXPECT_TRUE(acl().DeleteUser("u"));
  EXPECT_FALSE(acl().DeleteUser("u"));
  EXPECT_EQ(acl().Names(), std::vector<std::string>{"default"});
}

}  // namespace
}  // namespace sluice::server
