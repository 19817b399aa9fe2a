// INFO's client_recent_max_input_buffer and client_recent_max_output_buffer
// (server/metrics/buffer_peaks.h): a peak shows for eight seconds after the cron saw it, even
// once the buffer is empty again, and not after.

#include <gtest/gtest.h>

#include "server/metrics/buffer_peaks.h"

namespace sluice::server {
namespace {

TEST(BufferPeaksTest, APeakShowsForEightSecondsAfterItsTick) {
  BufferPeaks peaks;
  const int64_t start = 1'000'000'000;
  peaks.NoteInput(10 << 20);  // a 10 MB SET, run and gone before INFO
  peaks.NoteOutput(300);
  EXPECT_EQ(peaks.RecentMaxInput(start), 10u << 20);  // before the cron folds it
  peaks.Tick(start);
  peaks.NoteInput(27);  // INFO's own request
  EXPECT_EQ(peaks.RecentMaxInput(start + 50), 10u << 20);
  EXPECT_EQ(peaks.RecentMaxOutput(start + 50), 300u);
  for (int64_t ms = start + 100; ms < start + 7'000; ms += 100) peaks.Tick(ms);
  EXPECT_EQ(peaks.RecentMaxInput(start + 7'000), 10u << 20);
  for (int64_t ms = start + 7'000; ms <= start + 8'000; ms += 100) peaks.Tick(ms);
  // Their second (the 27 bytes' too) is eight seconds old.
  EXPECT_EQ(peaks.RecentMaxInput(start + 8'000), 0u);
  EXPECT_EQ(peaks.RecentMaxOutput(start + 8'000), 0u);
}

TEST(BufferPeaksTest, EachSecondKeepsItsLargest) {
  BufferPeaks peaks;
  const int64_t start = 5'000;
  peaks.NoteOutput(100);
  peaks.Tick(start);
  peaks.NoteOutput(5'000);
  peaks.NoteOutput(2'000);
  peaks.Tick(start + 1'000);
  peaks.NoteOutput(700);
  peaks.Tick(start + 2'000);
  EXPECT_EQ(peaks.RecentMaxOutput(start + 2'000), 5'000u);
  EXPECT_EQ(peaks.RecentMaxOutput(start + 8'999), 5'000u);
  EXPECT_EQ(peaks.RecentMaxOutput(start + 9'000), 700u);  // the 5,000's second has passed
  // A slot is reused eight seconds on: the new second's peak replaces the old.
  peaks.NoteOutput(1);
  peaks.Tick(start + 10'000);
  EXPECT_EQ(peaks.RecentMaxOutput(start + 10'000), 1u);
}

TEST(BufferPeaksTest, NothingNotedIsZero) {
  BufferPeaks peaks;
  peaks.Tick(0);
  EXPECT_EQ(peaks.RecentMaxInput(0), 0u);
  EXPECT_EQ(peaks.RecentMaxOutput(100'000), 0u);
}

}  // namespace
}  // namespace sluice::server
