// MEMORY STATS's peak.allocated (server/metrics/memory_marks.h): the highest count any sample
// saw, the cron's included, whatever a later read finds.

#include <gtest/gtest.h>

#include "server/metrics/memory_marks.h"

namespace sluice::server {
namespace {

// A burst the 100 ms cron sampled and freed before MEMORY STATS read the count: the read's
// lower figure does not lower the peak.
TEST(MemoryMarksTest, APeakTheCronSampledIsKeptAfterTheCountFalls) {
  MemoryMarks marks;
  marks.startup = 3'000'000;
  marks.Sample(marks.startup);  // as the server does once it has started
  marks.Sample(40'000'000);     // the cron, during the burst
  marks.Sample(5'000'000);      // MEMORY STATS, after it
  EXPECT_EQ(marks.peak, 40'000'000u);
  EXPECT_EQ(marks.startup, 3'000'000u);
  marks.Sample(41'000'000);  // a higher count raises it
  EXPECT_EQ(marks.peak, 41'000'000u);
}

}  // namespace
}  // namespace sluice::server
