#include "server/keyspace_event_flags.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "server/config.h"

namespace sluice::server {
namespace {

using namespace std::string_literals;

TEST(KeyspaceEventFlagsTest, EachLetterNamesItsRedisClass) {
  EXPECT_EQ(ParseKeyspaceEvents("K"), kNotifyKeyspace);
  EXPECT_EQ(ParseKeyspaceEvents("E"), kNotifyKeyevent);
  EXPECT_EQ(ParseKeyspaceEvents("g"), kNotifyGeneric);
  EXPECT_EQ(ParseKeyspaceEvents("$"), kNotifyString);
  EXPECT_EQ(ParseKeyspaceEvents("l"), kNotifyList);
  EXPECT_EQ(ParseKeyspaceEvents("s"), kNotifySet);
  EXPECT_EQ(ParseKeyspaceEvents("h"), kNotifyHash);
  EXPECT_EQ(ParseKeyspaceEvents("z"), kNotifyZset);
  EXPECT_EQ(ParseKeyspaceEvents("x"), kNotifyExpired);
  EXPECT_EQ(ParseKeyspaceEvents("e"), kNotifyEvicted);
  EXPECT_EQ(ParseKeyspaceEvents("t"), kNotifyStream);
  EXPECT_EQ(ParseKeyspaceEvents("m"), kNotifyKeyMiss);
  EXPECT_EQ(ParseKeyspaceEvents("d"), kNotifyModule);
  EXPECT_EQ(ParseKeyspaceEvents("n"), kNotifyNew);
  EXPECT_EQ(ParseKeyspaceEvents(""), 0u);
}

TEST(KeyspaceEventFlagsTest, AIsEveryClassButKeyMissAndNew) {
  const uint32_t all = *ParseKeyspaceEvents("A");
  EXPECT_EQ(all, *ParseKeyspaceEvents("g$lshzxetd"));
  EXPECT_EQ(all & (kNotifyKeyMiss | kNotifyNew | kNotifyKeyspace | kNotifyKeyevent), 0u);
}

TEST(KeyspaceEventFlagsTest, UnknownCharactersAreRefused) {
  EXPECT_FALSE(ParseKeyspaceEvents("KEA!"));
  EXPECT_FALSE(ParseKeyspaceEvents("k"));  // letters are case-sensitive
  EXPECT_FALSE(ParseKeyspaceEvents("K E"));
  EXPECT_FALSE(ParseKeyspaceEvents("a"));
}

TEST(KeyspaceEventFlagsTest, ReadingStopsAtTheFirstNulByteAsRedisCString) {
  EXPECT_EQ(ParseKeyspaceEvents("K\0!"s), kNotifyKeyspace);
}

TEST(KeyspaceEventFlagsTest, FormatIsRedisNormalisedOrder) {
  auto normalised = [](std::string_view text) {
    return FormatKeyspaceEvents(*ParseKeyspaceEvents(text));
  };
  EXPECT_EQ(normalised(""), "");
  EXPECT_EQ(normalised("EK"), "KE");
  EXPECT_EQ(normalised("AKE"), "AKE");
  EXPECT_EQ(normalised("EKg$lshzxetd"), "AKE");  // every class of A spelled out
  EXPECT_EQ(normalised("mEzhslx$g"), "g$lshzxEm");
  EXPECT_EQ(normalised("KKKgg"), "gK");
  EXPECT_EQ(normalised("tdne"), "etdn");
  EXPECT_EQ(normalised("mKE"), "KEm");
  EXPECT_EQ(normalised("Kn"), "nK");
  EXPECT_EQ(normalised("AnKE"), "AKE") << "Redis 7.0 prints no n beside A";
  EXPECT_EQ(*ParseKeyspaceEvents("AnKE") & kNotifyNew, kNotifyNew) << "yet n is on";
}

TEST(KeyspaceEventFlagsTest, ConfigSetAndGetUseThem) {
  Config config;
  EXPECT_EQ(ConfigGet(config, "notify-keyspace-events").at(0).second, "");
  const std::string_view set[] = {"notify-keyspace-events", "Ex$"};
  ASSERT_TRUE(ConfigSet(&config, set).ok());
  EXPECT_EQ(config.notify_keyspace_events, kNotifyKeyevent | kNotifyExpired | kNotifyString);
  EXPECT_EQ(ConfigGet(config, "notify-keyspace-events").at(0).second, "$xE");
  const std::string_view bad[] = {"notify-keyspace-events", "KEQ"};
  const Status refused = ConfigSet(&config, bad);
  EXPECT_EQ(refused.message(),
            "CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid "
            "event class character. Use 'Ag$lshzxeKEtmdn'.");
  EXPECT_EQ(config.notify_keyspace_events, kNotifyKeyevent | kNotifyExpired | kNotifyString)
      << "a refused value changes nothing";
}

}  // namespace
}  // namespace sluice::server
