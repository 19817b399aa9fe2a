// The latency monitor's samples (one a second, 160 an event) and reports, and the per-command
// latency histograms in Redis's units.

#include "server/latency_monitor.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "server/metrics/command_latency.h"

namespace sluice::server {
namespace {

TEST(LatencyMonitorTest, KeepsTheLargestLatencyOfEachSecond) {
  LatencyMonitor monitor;
  monitor.Add("command", 12, 1000);
  monitor.Add("command", 30, 1000);
  monitor.Add("command", 7, 1000);
  monitor.Add("command", 5, 1001);
  const LatencyMonitor::Series* series = monitor.Find("command");
  ASSERT_NE(series, nullptr);
  ASSERT_EQ(series->samples.size(), 2u);
  EXPECT_EQ(series->samples[0].millis, 30u);
  EXPECT_EQ(series->samples[1].unix_seconds, 1001);
  EXPECT_EQ(series->samples[1].millis, 5u);
  EXPECT_EQ(series->max_millis, 30u);
}

TEST(LatencyMonitorTest, KeepsTheLast160SamplesAndTheAllTimeHigh) {
  LatencyMonitor monitor;
  monitor.Add("expire-cycle", 500, 0);
  for (int64_t second = 1; second <= 200; ++second) monitor.Add("expire-cycle", 10, second);
  const LatencyMonitor::Series* series = monitor.Find("expire-cycle");
  ASSERT_NE(series, nullptr);
  ASSERT_EQ(series->samples.size(), LatencyMonitor::kSamplesPerEvent);
  EXPECT_EQ(series->samples.front().unix_seconds, 41);
  EXPECT_EQ(series->max_millis, 500u);
}

TEST(LatencyMonitorTest, SamplesOnlyWhatReachesTheThresholdAtTheClocksSecond) {
  LatencyMonitor monitor;
  const ManualClock clock(1'700'000'000'250'000);
  monitor.AddIfNeeded("command", 4'999'999, 5, clock);  // 4 ms in whole milliseconds
  monitor.AddIfNeeded("command", 50'000'000, 0, clock);  // monitoring off
  EXPECT_EQ(monitor.Find("command"), nullptr);
  monitor.AddIfNeeded("command", 5'000'000, 5, clock);
  ASSERT_NE(monitor.Find("command"), nullptr);
  EXPECT_EQ(monitor.Find("command")->samples.back().millis, 5u);
  EXPECT_EQ(monitor.Find("command")->samples.back().unix_seconds, 1'700'000'000);
}

TEST(LatencyMonitorTest, ResetForgetsTheNamedEventsOrAll) {
  LatencyMonitor monitor;
  monitor.Add("command", 1, 1);
  monitor.Add("fast-command", 1, 1);
  monitor.Add("aof-write", 1, 1);
  EXPECT_EQ(monitor.Reset({"command", "nosuch"}), 1u);
  EXPECT_EQ(monitor.Find("command"), nullptr);
  EXPECT_EQ(monitor.Reset({}), 2u);
  EXPECT_TRUE(monitor.events().empty());
}

TEST(LatencyMonitorTest, GraphHasATitleARuleAColumnPerSampleAndItsAge) {
  LatencyMonitor monitor;
  monitor.Add("command", 10, 100);
  monitor.Add("command", 40, 130);
  const std::string graph = LatencyGraph("command", *monitor.Find("command"), 150);
  EXPECT_EQ(graph,
            "command - high 40 ms, low 10 ms (all time high 40 ms)\n" + std::string(80, '-') +
                "\n"
                " `\n"
                " |\n"
                " |\n"
                "_|\n"
                "  \n"
                "52\n"
                "00\n"
                "ss\n");
}

TEST(LatencyMonitorTest, DoctorSaysWhetherMonitoringIsOffOrQuietOrWhatItSaw) {
  LatencyMonitor monitor;
  EXPECT_EQ(LatencyDoctor(monitor, 0).rfind("I'm sorry, Dave, I can't do that.", 0), 0u);
  EXPECT_EQ(LatencyDoctor(monitor, 10).rfind("Dave, no latency spike was observed", 0), 0u);
  monitor.Add("aof-fsync-always", 25, 1);
  monitor.Add("aof-fsync-always", 15, 3);
  const std::string report = LatencyDoctor(monitor, 10);
  EXPECT_NE(report.find("1. aof-fsync-always: 2 latency spikes (average 20ms, period 2 sec). "
                        "Worst all time event 25ms."),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("write-ahead log's disk is slow"), std::string::npos) << report;
}

TEST(CommandLatencyTest, PercentilesAreTheLargestValueOfTheirBucket) {
  CommandLatency latency;
  latency.Record(2'000);  // a bucket 8 ns wide: 2000..2007
  latency.Record(6'000);  // 32 ns wide: 5984..6015
  EXPECT_EQ(latency.calls(), 2u);
  EXPECT_EQ(latency.ValueAtPercentile(50), 2'007u);
  EXPECT_EQ(latency.ValueAtPercentile(99), 6'015u);
  EXPECT_EQ(latency.ValueAtPercentile(100), 6'015u);
  EXPECT_EQ(latency.ValueAtPercentile(0), 2'000u);  // the smallest of the first bucket
}

TEST(CommandLatencyTest, ValuesOutsideTheRangeCountAtItsEnds) {
  CommandLatency latency;
  latency.Record(3);
  latency.Record(5'000'000'000);
  EXPECT_EQ(latency.ValueAtPercentile(1), 1'031u);  // 1,024 ns, in a bucket 8 ns wide
  EXPECT_EQ(latency.ValueAtPercentile(100), 1'002'438'655u);  // 1 s, 4,194,304 ns wide
}

// Redis's LATENCY HISTOGRAM points for calls of ~5 to ~20 us (redis-server 7.0: 8, 16, 33).
TEST(CommandLatencyTest, CumulativePointsAtPowersOfTwoSkipThoseThatAddNothing) {
  CommandLatency latency;
  for (int i = 0; i < 4; ++i) latency.Record(6'000);
  for (int i = 0; i < 15; ++i) latency.Record(12'000);
  latency.Record(20'000);
  const std::vector<std::pair<uint64_t, uint64_t>> expected = {{8, 4}, {16, 19}, {33, 20}};
  EXPECT_EQ(latency.CumulativeMicros(), expected);
  latency.Record(900'000'000);
  EXPECT_EQ(latency.CumulativeMicros().back(), (std::pair<uint64_t, uint64_t>{1'082'130, 21}));
}

TEST(CommandLatencyTest, NothingRecordedHasNoPoints) {
  const CommandLatency latency;
  EXPECT_EQ(latency.calls(), 0u);
  EXPECT_TRUE(latency.CumulativeMicros().empty());
  EXPECT_EQ(latency.ValueAtPercentile(50), 0u);
}

}  // namespace
}  // namespace sluice::server
