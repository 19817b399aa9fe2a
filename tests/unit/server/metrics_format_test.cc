// The text formats behind metrics-port and INFO: Prometheus exposition, JSON, readable UTF-8,
// the latency histogram's buckets, and the *_human byte counts.

#include <gtest/gtest.h>

#include <cstdint>

#include "server/metrics/human_bytes.h"
#include "server/metrics/json_writer.h"
#include "server/metrics/latency_histogram.h"
#include "server/metrics/prometheus_writer.h"
#include "server/metrics/readable_text.h"

namespace sluice::server {
namespace {

// Redis's bytesToHuman: bytes below 1 K, then two decimals in K, M, G, T and P, and bytes
// again from 1024 P on.
TEST(HumanBytes, FormatsAsRedisBytesToHuman) {
  constexpr uint64_t kK = 1024;
  EXPECT_EQ(HumanBytes(0), "0B");
  EXPECT_EQ(HumanBytes(kK - 1), "1023B");
  EXPECT_EQ(HumanBytes(kK), "1.00K");
  EXPECT_EQ(HumanBytes(914432), "893.00K");
  EXPECT_EQ(HumanBytes(kK * kK - 1), "1024.00K");
  EXPECT_EQ(HumanBytes(kK * kK), "1.00M");
  EXPECT_EQ(HumanBytes(6541312), "6.24M");
  EXPECT_EQ(HumanBytes(25276063744), "23.54G");
  EXPECT_EQ(HumanBytes(kK * kK * kK * kK * 3 / 2), "1.50T");
  EXPECT_EQ(HumanBytes(kK * kK * kK * kK * kK * 2), "2.00P");
  EXPECT_EQ(HumanBytes(kK * kK * kK * kK * kK * kK), "1152921504606846976B");
  EXPECT_EQ(HumanBytes(UINT64_MAX), "18446744073709551615B");
}

TEST(ReadableUtf8, KeepsValidUtf8AndEscapesTheRest) {
  EXPECT_EQ(ReadableUtf8("plain"), "plain");
  EXPECT_EQ(ReadableUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(ReadableUtf8("a\xff"), "a\\xff");
  EXPECT_EQ(ReadableUtf8("\xc3"), "\\xc3");                    // truncated sequence
  EXPECT_EQ(ReadableUtf8("\xc0\xaf"), "\\xc0\\xaf");           // overlong
  EXPECT_EQ(ReadableUtf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
  EXPECT_EQ(ReadableUtf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(PrometheusWriter, FamiliesSamplesAndEscapedLabels) {
  PrometheusWriter out;
  out.Family("x_total", "counter", "Things.");
  out.Sample("x_total", uint64_t{3});
  out.Sample("x_total", uint64_t{4}, {{"a", "q\"b\\c\nd"}, {"b", "\xff"}});
  out.Sample("y_seconds", 0.25);
  EXPECT_EQ(out.Take(),
            "# HELP x_total Things.\n"
            "# TYPE x_total counter\n"
            "x_total 3\n"
            "x_total{a=\"q\\\"b\\\\c\\nd\",b=\"\\\\xff\"} 4\n"
            "y_seconds 0.25\n");
}

TEST(JsonWriter, NestedContainersCommasAndEscapes) {
  JsonWriter out;
  out.BeginObject();
  out.Field("n", uint64_t{1});
  out.Field("neg", int64_t{-2});
  out.Key("list");
  out.BeginArray();
  out.String("a\"b");
  out.BeginObject();
  out.EndObject();
  out.Null();
  out.EndArray();
  out.Field("s", std::string_view("<\x01\n\xff"));
  out.EndObject();
  EXPECT_EQ(out.Take(),
            "{\"n\":1,\"neg\":-2,\"list\":[\"a\\\"b\",{},null],"
            "\"s\":\"\\u003c\\u0001\\u000a\\\\xff\"}");
}

TEST(LatencyHistogram, BucketsByUpperBound) {
  LatencyHistogram h;
  h.Observe(0);
  h.Observe(1000);  // on the first bound: first bucket (le is inclusive)
  h.Observe(1001);
  h.Observe(uint64_t{1} << 40);  // beyond the last bound: +Inf
  EXPECT_EQ(h.bucket(0), 2u);
  EXPECT_EQ(h.bucket(1), 1u);
  EXPECT_EQ(h.bucket(LatencyHistogram::kBoundsNs.size()), 1u);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.sum_ns(), 2001u + (uint64_t{1} << 40));
}

}  // namespace
}  // namespace sluice::server
