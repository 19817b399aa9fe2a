// The ACL file's lines read into users, and the errors for bad ones, as Redis 7.0's
// ACLLoadFromFile (the expected texts are redis-server 7.0.15's for the same file); and the
// registry's users replaced by a file's.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/acl/acl_file.h"
#include "server/acl/registry.h"
#include "server/commands/commands.h"

namespace sluice::server {
namespace {

constexpr std::string_view kWarning =
    "WARNING: ACL errors detected, no change to the previously active ACL rules was performed";

class AclFileTest : public ::testing::Test {
 protected:
  AclFileTest() {
    RegisterAllCommands(table_);
    acl_ = std::make_unique<AclRegistry>(table_);
  }

  // The users' ACL LIST lines, or the error text.
  std::vector<std::string> Parse(std::string_view text) {
    StatusOr<std::vector<AclUser>> users = ParseAclFile(text, "/etc/users.acl", acl_->ids());
    if (!users.ok()) return {users.status().message()};
    std::vector<std::string> lines;
    for (const AclUser& user : *users) {
      lines.push_back("user " + user.name + " " + DescribeAclUser(user, acl_->ids()));
    }
    return lines;
  }
  std::string Error(std::string_view text) {
    std::vector<std::string> result = Parse(text);
    EXPECT_EQ(result.size(), 1u);
    return result.empty() ? "" : result[0];
  }

  CommandTable table_;
  std::unique_ptr<AclRegistry> acl_;
};

TEST_F(AclFileTest, UsersInFileOrderEachFromANewUser) {
  EXPECT_EQ(Parse("user bob off\nuser alice on >pw ~a* +get\n"),
            (std::vector<std::string>{
                "user bob off resetchannels -@all",
                "user alice on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 "
                "~a* resetchannels -@all +get"}));
  // The default user's line starts from a new user too, not from "on nopass ~* &* +@all".
  EXPECT_EQ(Parse("user default on ~* +@all"),
            (std::vector<std::string>{"user default on ~* resetchannels +@all"}));
}

TEST_F(AclFileTest, BlankLinesTrimmingAndSingleSpaces) {
  EXPECT_EQ(Parse(""), std::vector<std::string>{});
  EXPECT_EQ(Parse("\n  \t\r\n\n"), std::vector<std::string>{});
  // Ends of lines are trimmed, and a rule's tabs and CRs; two spaces make an empty rule,
  // which does nothing.
  EXPECT_EQ(Parse("  user a on  +get\t\r\n"),
            (std::vector<std::string>{"user a on resetchannels -@all +get"}));
  EXPECT_EQ(Parse("user a on\t+get"),
            (std::vector<std::string>{"/etc/users.acl:1: Syntax error. " + std::string(kWarning)}));
}

TEST_F(AclFileTest, EveryBadLineIsReported) {
  EXPECT_EQ(Error("user alice on >pw ~a* +get foo\n"
                  "bad line\n"
                  "user x +nosuch bar\n"
                  "user a\tb on\n"
                  "#comment\n"
                  "user carol on +@nosuch -bar\n"),
            "/etc/users.acl:1: Syntax error. "
            "/etc/users.acl:2 should start with user keyword followed by the username. "
            "/etc/users.acl:3: Error in applying operation '+nosuch': Unknown command or "
            "category name in ACL. "
            "/etc/users.acl:3: Syntax error. "
            "'/etc/users.acl:4: username 'a\tb' contains invalid characters. "
            "/etc/users.acl:5 should start with user keyword followed by the username. "
            "/etc/users.acl:6: Error in applying operation '+@nosuch': Unknown command or "
            "category name in ACL. "
            "/etc/users.acl:6: Error in applying operation '-bar': Unknown command or category "
            "name in ACL. " +
                std::string(kWarning));
}

TEST_F(AclFileTest, OnlyTheFirstErrorOtherThanAnUnknownNameIsTold) {
  EXPECT_EQ(Error("user u junk junk2 +nosuch <nopw\n"),
            "/etc/users.acl:1: Syntax error. /etc/users.acl:1: Error in applying operation "
            "'+nosuch': Unknown command or category name in ACL. " +
                std::string(kWarning));
  EXPECT_EQ(Error("user u #abc\n"),
            "/etc/users.acl:1: The password hash must be exactly 64 characters and contain only "
            "lowercase hexadecimal characters. " +
                std::string(kWarning));
}

TEST_F(AclFileTest, KeywordUserNameAndDuplicates) {
  EXPECT_EQ(Error("USER a on"), "/etc/users.acl:1 should start with user keyword followed by "
                                "the username. " + std::string(kWarning));
  EXPECT_EQ(Error("user"), "/etc/users.acl:1 should start with user keyword followed by the "
                           "username. " + std::string(kWarning));
  EXPECT_EQ(Error("user a on\n\nuser a off\n"),
            "WARNING: Duplicate user 'a' found on line 3. " + std::string(kWarning));
  // A user whose line had an error still counts as defined.
  EXPECT_EQ(Error("user a +nosuch\nuser a on\n"),
            "/etc/users.acl:1: Error in applying operation '+nosuch': Unknown command or "
            "category name in ACL. WARNING: Duplicate user 'a' found on line 2. " +
                std::string(kWarning));
}

TEST_F(AclFileTest, Selectors) {
  // A selector's words are one rule again (which sluice refuses); one never closed is an error
  // (redis-server 7.0.15 crashes there).
  EXPECT_EQ(Error("user u on (~x +get) ~y"),
            "/etc/users.acl:1: Selectors are not supported by sluice. " + std::string(kWarning));
  EXPECT_EQ(Error("user u on (~x"),
            "/etc/users.acl:1: Unmatched parenthesis in selector definition." +
                std::string(kWarning));
}

TEST_F(AclFileTest, ReplaceUsersKeepsTheDefaultObjectAndResetsIt) {
  ASSERT_TRUE(acl_->SetUser("old", std::vector<std::string_view>{"on"}).ok());
  acl_->SetRequirePass("secret");
  const std::shared_ptr<const AclUser> before = acl_->default_user();
  StatusOr<std::vector<AclUser>> users = ParseAclFile("user new on", "f", acl_->ids());
  ASSERT_TRUE(users.ok());
  acl_->ReplaceUsers(std::move(users).value());
  EXPECT_EQ(acl_->Names(), (std::vector<std::string>{"default", "new"}));
  EXPECT_EQ(acl_->default_user(), before);  // its connections keep it
  EXPECT_EQ(DescribeAclUser(*acl_->default_user(), acl_->ids()), "on nopass ~* &* +@all");
  EXPECT_TRUE(acl_->default_user()->unrestricted);

  users = ParseAclFile("user default on >x ~a*", "f", acl_->ids());
  ASSERT_TRUE(users.ok());
  acl_->ReplaceUsers(std::move(users).value());
  EXPECT_EQ(acl_->Names(), std::vector<std::string>{"default"});
  EXPECT_EQ(acl_->default_user(), before);
  EXPECT_FALSE(acl_->default_user()->unrestricted);
  EXPECT_NE(acl_->Authenticate("default", "x"), nullptr);
}

TEST_F(AclFileTest, StartRefusesUserLinesWithAnAclFile) {
  Status both = LoadUsersAtStart(*acl_, {{"alice", "on"}}, "/etc/users.acl");
  EXPECT_EQ(both.message(),
            "Configuring Redis with users defined in redis.conf and at the same setting an ACL "
            "file path is invalid. This setup is very likely to lead to configuration errors "
            "and security holes, please define either an ACL file or declare users directly in "
            "your redis.conf, but not both.");
  Status missing = LoadUsersAtStart(*acl_, {}, "/nonexistent/users.acl");
  EXPECT_EQ(missing.message(),
            "Aborting Redis startup because of ACL errors: Error loading ACLs, opening file "
            "'/nonexistent/users.acl': No such file or directory");
  EXPECT_TRUE(LoadUsersAtStart(*acl_, {{"alice", "on"}}, "").ok());
  EXPECT_NE(acl_->Find("alice"), nullptr);
}

}  // namespace
}  // namespace sluice::server
