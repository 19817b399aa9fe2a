// The key-spec flags the ACL stores per command (server/acl/key_access.h), over the server's
// real table: SET's and BITFIELD's, which their arguments decide, stored as COMMAND INFO shows
// them and decided per request without the variable_flags mark; the ACL's needs derived from
// the flags.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "server/acl/command_ids.h"
#include "server/commands/commands.h"

namespace sluice::server {
namespace {

class KeyAccessTest : public ::testing::Test {
 protected:
  KeyAccessTest() { RegisterAllCommands(table_); }

  const AclKeyAccess& Stored(std::string_view name) {
    if (!ids_) ids_.emplace(table_);
    return ids_->entry(table_.Find(name)->index).keys;
  }

  CommandTable table_;
  std::optional<AclCommandIds> ids_;
};

constexpr KeySpecFlags kMayChange = kKeyRW | kKeyAccess | kKeyUpdate | kKeyVariableFlags;

// Redis 7.0.15's key specs for SET and BITFIELD: RW access update variable_flags. COMMAND INFO
// shows the stored flags as they are.
TEST_F(KeyAccessTest, SetAndBitfieldStoreWhatTheyMayDo) {
  for (std::string_view name : {"set", "bitfield"}) {
    EXPECT_EQ(Stored(name).first_flags, kMayChange) << name;
    EXPECT_EQ(Stored(name).rest_flags, kMayChange) << name;
  }
}

// A request's flags are decided by its arguments (Redis's setGetKeys, bitfieldGetKeys), with no
// variable_flags: COMMAND GETKEYSANDFLAGS shows them, the ACL's needs follow from them.
TEST_F(KeyAccessTest, ArgumentsDecideSetAndBitfieldFlags) {
  struct Case {
    std::vector<std::string_view> args;
    KeySpecFlags flags;
    uint8_t need;
  };
  const Case cases[] = {
      {{"set", "k", "v"}, kKeyOverwrites, kAclNeedWrite},
      {{"set", "k", "v", "nx", "GET"}, kKeyChanges, kAclNeedRead | kAclNeedWrite},
      {{"bitfield", "k", "get", "u8", "0"}, kKeyReads, kAclNeedRead},
      {{"bitfield", "k", "incrby", "u8", "0", "1"}, kKeyChanges, kAclNeedRead | kAclNeedWrite},
  };
  for (const Case& c : cases) {
    const AclKeyAccess& stored = Stored(c.args[0]);
    const KeySpecFlagsPair flags = KeySpecFlagsFor(stored, c.args);
    EXPECT_EQ(flags.first, c.flags) << c.args[0] << " " << c.args.back();
    EXPECT_EQ(flags.rest, c.flags) << c.args[0] << " " << c.args.back();
    const AclKeyNeeds needs = AclKeyNeedsFor(stored, c.args);
    EXPECT_EQ(needs.first, c.need) << c.args[0] << " " << c.args.back();
    EXPECT_EQ(needs.rest, c.need) << c.args[0] << " " << c.args.back();
  }
}

// Read for access, write for update, insert or delete, both, or neither for a key only looked
// at; other flags (RO, OW, variable_flags) ask nothing.
TEST(AclKeyNeedOfTest, AccessReadsAndChangesWrite) {
  EXPECT_EQ(AclKeyNeedOf(kKeyLooks), kAclNeedNone);
  EXPECT_EQ(AclKeyNeedOf(kKeyReads), kAclNeedRead);
  EXPECT_EQ(AclKeyNeedOf(kKeyUpdates), kAclNeedWrite);
  EXPECT_EQ(AclKeyNeedOf(kKeyInserts), kAclNeedWrite);
  EXPECT_EQ(AclKeyNeedOf(kKeyDeletes), kAclNeedWrite);
  EXPECT_EQ(AclKeyNeedOf(kKeyTakes), kAclNeedRead | kAclNeedWrite);
  EXPECT_EQ(AclKeyNeedOf(kKeyOW | kKeyVariableFlags), kAclNeedNone);
}

}  // namespace
}  // namespace sluice::server
