// MEMORY DOCTOR's report from given figures: Redis 7.0's checks (an instance under 5 MB is
// "empty"; a peak above 150%, fragmentation above 1.4 or 1.1 and 10 MB, clients' buffers above
// 200 KB each, more than 1,000 scripts are issues) and its texts.

#include <gtest/gtest.h>

#include <string>

#include "server/commands/memory_overhead.h"

namespace sluice::server {
namespace {

constexpr uint64_t kMb = 1 << 20;

// A healthy instance of 64 MB: no ratio past Redis's thresholds.
MemoryOverhead Healthy() {
  MemoryOverhead m;
  m.total_allocated = 64 * kMb;
  m.peak_allocated = 70 * kMb;
  m.total_frag = 1.2f;
  m.total_frag_bytes = 13 * kMb;
  m.allocator_frag = 1.01f;
  m.allocator_frag_bytes = 1 * kMb;
  m.allocator_rss = 1.05f;
  m.allocator_rss_bytes = 3 * kMb;
  m.rss_extra = 1.08f;
  m.rss_extra_bytes = 5 * kMb;
  m.clients = 2;
  m.clients_normal = 64 * 1024;
  m.scripts = 3;
  m.allocator_name = "jemalloc-5.3.0";
  return m;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MemoryDoctorTest, AnInstanceUnderFiveMegabytesIsEmptyWhateverItsRatios) {
  MemoryOverhead m = Healthy();
  m.total_allocated = 5 * kMb - 1;
  m.peak_allocated = 100 * kMb;
  EXPECT_EQ(MemoryDoctorReport(m),
            "Hi Sam, this instance is empty or is using very little memory, my issues detector "
            "can't be used in these conditions. Please, leave for your mission on Earth and fill "
            "it with some data. The new Sam and I will be back to our programming as soon as I "
            "finished rebooting.\n");
}

TEST(MemoryDoctorTest, NoIssueBelowEveryThreshold) {
  EXPECT_EQ(MemoryDoctorReport(Healthy()),
            "Hi Sam, I can't find any memory issue in your instance. I can only account for "
            "what occurs on this base.\n");
}

TEST(MemoryDoctorTest, APeakAboveHalfAgainWhatIsUsedNow) {
  MemoryOverhead m = Healthy();
  m.peak_allocated = 97 * kMb;  // 1.515 times 64 MB
  const std::string report = MemoryDoctorReport(m);
  EXPECT_EQ(report.rfind("Sam, I detected a few issues in this Redis instance memory "
                         "implants:\n\n * Peak memory: In the past this instance used more than "
                         "150% the memory that is currently using.",
                         0),
            0u)
      << report;
  EXPECT_TRUE(Contains(report, "please try the MEMORY PURGE command"));
  const std::string last = "I'm here to keep you safe, Sam. I want to help you.\n";
  ASSERT_GT(report.size(), last.size());
  EXPECT_EQ(report.substr(report.size() - last.size()), last);
  EXPECT_FALSE(Contains(report, "High total RSS"));
}

TEST(MemoryDoctorTest, FragmentationNeedsBothTheRatioAndTenMegabytes) {
  MemoryOverhead m = Healthy();
  m.total_frag = 1.5f;
  m.total_frag_bytes = 10 * kMb;  // not above 10 MB: no issue
  EXPECT_FALSE(Contains(MemoryDoctorReport(m), "High total RSS"));
  m.total_frag_bytes = 10 * kMb + 1;
  EXPECT_TRUE(Contains(MemoryDoctorReport(m),
                       "Note: The currently used allocator is \"jemalloc-5.3.0\".\n\n"));
  m = Healthy();
  m.allocator_frag = 1.2f;
  m.allocator_frag_bytes = 11 * kMb;
  EXPECT_TRUE(Contains(MemoryDoctorReport(m), " * High allocator fragmentation:"));
  m = Healthy();
  m.allocator_rss = 1.2f;
  m.allocator_rss_bytes = 11 * kMb;
  EXPECT_TRUE(Contains(MemoryDoctorReport(m), " * High allocator RSS overhead:"));
  m = Healthy();
  m.rss_extra = 1.2f;
  m.rss_extra_bytes = 11 * kMb;
  EXPECT_TRUE(Contains(MemoryDoctorReport(m), " * High process RSS overhead:"));
}

TEST(MemoryDoctorTest, ClientBuffersAndScriptsInRedisOrder) {
  MemoryOverhead m = Healthy();
  m.clients_normal = m.clients * (200 * 1024 + 1);
  m.scripts = 1001;
  const std::string report = MemoryDoctorReport(m);
  const size_t clients = report.find(" * Big client buffers: The clients output buffers");
  const size_t scripts = report.find(" * Many scripts: There seem to be many cached scripts");
  ASSERT_NE(clients, std::string::npos) << report;
  ASSERT_NE(scripts, std::string::npos) << report;
  EXPECT_LT(clients, scripts);
  m.scripts = 1000;
  m.clients_normal = m.clients * 200 * 1024;
  EXPECT_EQ(MemoryDoctorReport(m), MemoryDoctorReport(Healthy()));
}

}  // namespace
}  // namespace sluice::server
