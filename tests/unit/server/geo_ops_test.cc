// The geo math of the GEO* commands against what a real redis-server 7.0.15 replied: GEOADD's
// scores, GEOPOS's coordinates, GEOHASH's strings, GEODIST's distances, positions of scores
// that are not geohashes, and the members of searches over grids of points (one across the
// antimeridian near the latitude limit); plus the bit operations' own properties.

#include "server/commands/geo_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "server/commands/helpers.h"

namespace sluice::server::geo {
namespace {

// GEOADD g lon lat name, then ZSCORE, GEOPOS and GEOHASH of each (redis-server 7.0.15).
struct PointVector {
  const char* name;
  double longitude;
  double latitude;
  uint64_t score;
  const char* pos_longitude;
  const char* pos_latitude;
  const char* geohash;
};
constexpr PointVector kPoints[] = {
    {"palermo", 13.361389, 38.115556, 3479099956230698ULL, "13.36138933897018433",
     "38.11555639549629859", "sqc8b49rny0"},
    {"catania", 15.087269, 37.502669, 3479447370796909ULL, "15.08726745843887329",
     "37.50266842333162032", "sqdtr74hyu0"},
    {"origin", 0, 0, 3377699720527872ULL, "0.00000268220901489", "0.00000126736058093",
     "s0000000000"},
    {"north", -179.9, 85.05, 1501200421007878ULL, "-179.89999920129776001", "85.04999956172351006",
     "bp05f6bu4j0"},
    {"south", 179.9, -85.05, 3002399206362617ULL, "179.89999920129776001", "-85.04999956172352427",
     "pbzujtp5vf0"},
    // The top of both ranges encodes one past the last box (bits 52 and 53).
    {"corner", 180, 85.05112878, 13510798882111488ULL, "180", "85.0511287799999991", "bp05b5048p0"},
    {"corner2", -180, -85.05112878, 0ULL, "-179.99999731779098511", "-85.05112751263942528",
     "00bh0hbj200"},
    {"tokyo", 139.6917, 35.6895, 4171231230197045ULL, "139.69170123338699341",
     "35.68950126697937009", "xn774c06kt0"},
    {"nyc", -74.006, 40.7128, 1791873974549446ULL, "-74.0060010552406311", "40.71279898695150479",
     "dr5regw3pp0"},
    {"sydney", 151.2093, -33.8688, 3252046221964352ULL, "151.20929986238479614",
     "-33.86880091934155956", "r3gx2f77bj0"},
    {"tiny", 1e-9, -1e-9, 2627099782632789ULL, "0.00000268220901489", "-0.00000126736058093",
     "kpbpbpbpbp0"},
};

const PointVector& Named(const char* name) {
  for (const PointVector& p : kPoints) {
    if (std::string(p.name) == name) return p;
  }
  ADD_FAILURE() << name;
  return kPoints[0];
}

std::string Fixed4(double d) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.4f", d);
  return buf;
}

TEST(GeoEncode, ScoresAreRedisOnes) {
  for (const PointVector& p : kPoints) {
    EXPECT_EQ(ScoreBits(p.longitude, p.latitude), p.score) << p.name;
  }
}

TEST(GeoDecode, PositionsAreRedisOnes) {
  for (const PointVector& p : kPoints) {
    const Point decoded = DecodeScore(static_cast<double>(p.score));
    EXPECT_EQ(FormatLongDouble(decoded.longitude), p.pos_longitude) << p.name;
    EXPECT_EQ(FormatLongDouble(decoded.latitude), p.pos_latitude) << p.name;
  }
}

TEST(GeoHash, StringsAreRedisOnes) {
  for (const PointVector& p : kPoints) {
    EXPECT_EQ(GeohashString(static_cast<double>(p.score)), p.geohash) << p.name;
  }
}

TEST(GeoDistance, DistancesAreRedisOnes) {
  struct Case {
    const char* a;
    const char* b;
    const char* meters;
    const char* miles;
  };
  const Case cases[] = {
      {"palermo", "catania", "166274.1516", "103.3182"},
      {"origin", "tiny", "0.2819", "0.0002"},
      {"north", "south", "18919595.2138", "11756.1207"},
      {"tokyo", "nyc", "10851868.8453", "6743.0554"},
      {"nyc", "sydney", "15993266.6495", "9937.7799"},
      {"corner", "corner2", "18919844.5891", "11756.2756"},
  };
  for (const Case& c : cases) {
    const Point a = DecodeScore(static_cast<double>(Named(c.a).score));
    const Point b = DecodeScore(static_cast<double>(Named(c.b).score));
    const double d = Distance(a.longitude, a.latitude, b.longitude, b.latitude);
    EXPECT_EQ(Fixed4(d), c.meters) << c.a << " " << c.b;
    EXPECT_EQ(Fixed4(d / 1609.34), c.miles) << c.a << " " << c.b;
    EXPECT_EQ(Distance(b.longitude, b.latitude, a.longitude, a.latitude), d);
  }
}

// ZADD g <score> m, then GEOPOS and GEOHASH: Redis converts the score to an integer as x86-64
// does, so negative scores wrap and infinities give 0 or 2^63.
TEST(GeoDecode, ScoresThatAreNotGeohashes) {
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    double score;
    const char* longitude;
    const char* latitude;
    const char* geohash;
  };
  const Case cases[] = {
      {-1, "180", "85.0511287799999991", "bp05b5048p0"},
      {inf, "-179.99999731779098511", "-85.05112751263942528", "00bh0hbj200"},
      {-inf, "180", "-85.05112751263942528", "00bh0hbj200"},
      {1e30, "-179.99999731779098511", "-85.05112751263942528", "00bh0hbj200"},
      {1e19, "180", "85.0511287799999991", "bp05b5048p0"},
      {9.3e18, "180", "85.0511287799999991", "bp05b5048p0"},
      {100.5, "-179.99997586011886597", "-85.05110216542783519", "00bh0hbj2t0"},
      {0, "-179.99999731779098511", "-85.05112751263942528", "00bh0hbj200"},
  };
  for (const Case& c : cases) {
    const Point p = DecodeScore(c.score);
    EXPECT_EQ(FormatLongDouble(p.longitude), c.longitude) << c.score;
    EXPECT_EQ(FormatLongDouble(p.latitude), c.latitude) << c.score;
    EXPECT_EQ(GeohashString(c.score), c.geohash) << c.score;
  }
  EXPECT_EQ(BitsOfScore(-1), ~uint64_t{0});
  EXPECT_EQ(BitsOfScore(inf), 0u);
  EXPECT_EQ(BitsOfScore(-inf), uint64_t{1} << 63);
  EXPECT_EQ(BitsOfScore(1e19), 10000000000000000000ULL);
  EXPECT_EQ(BitsOfScore(100.9), 100u);
}

TEST(GeoBits, InterleaveRoundTrips) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t bits = rng();
    const uint64_t separated = Deinterleave(bits);
    EXPECT_EQ(Interleave(static_cast<uint32_t>(separated), static_cast<uint32_t>(separated >> 32)),
              bits);
  }
  EXPECT_EQ(Interleave(1, 0), 1u);  // the latitude in the even bits
  EXPECT_EQ(Interleave(0, 1), 2u);  // the longitude in the odd ones
  EXPECT_EQ(Interleave(1u << 26, 0), uint64_t{1} << 52);
}

// The boxes around a box at a step: one step along each axis, wrapping around at both ends.
TEST(GeoNeighbors, MoveOneBoxAndWrap) {
  const int step = 3;
  auto hash = [&](uint32_t lat, uint32_t lon) { return HashBits{Interleave(lat, lon), step}; };
  Neighbors n = NeighborsOf(hash(2, 5));
  EXPECT_EQ(n.north, hash(3, 5));
  EXPECT_EQ(n.south, hash(1, 5));
  EXPECT_EQ(n.east, hash(2, 6));
  EXPECT_EQ(n.west, hash(2, 4));
  EXPECT_EQ(n.north_east, hash(3, 6));
  EXPECT_EQ(n.north_west, hash(3, 4));
  EXPECT_EQ(n.south_east, hash(1, 6));
  EXPECT_EQ(n.south_west, hash(1, 4));
  n = NeighborsOf(hash(7, 0));  // the top row, the westmost column
  EXPECT_EQ(n.north, hash(0, 0));
  EXPECT_EQ(n.west, hash(7, 7));
  EXPECT_EQ(n.north_west, hash(0, 7));
  n = NeighborsOf(hash(0, 7));
  EXPECT_EQ(n.south, hash(7, 7));
  EXPECT_EQ(n.east, hash(0, 0));
}

TEST(GeoSteps, EstimatedFromTheRadiusAndLatitude) {
  EXPECT_EQ(EstimateSteps(0, 0), 26);
  EXPECT_EQ(EstimateSteps(1000, 0), 14);
  EXPECT_EQ(EstimateSteps(1000, 70), 13);
  EXPECT_EQ(EstimateSteps(1000, -85), 12);
  EXPECT_EQ(EstimateSteps(0.01, 0), 26);
  EXPECT_EQ(EstimateSteps(kMercatorMax, 0), 1);
  EXPECT_EQ(EstimateSteps(5000000, 0), 2);
  EXPECT_EQ(EstimateSteps(1.5e7, 0), 1);
}

TEST(GeoSearch, IntervalsAreBoxesOfTheSameStep) {
  Shape shape;
  shape.centre = {13.25, 38.25};
  shape.radius = 9;
  shape.conversion = 1000;
  const SearchAreas areas = AreasForShape(shape);
  const std::vector<ScoreInterval> intervals = IntervalsToSearch(areas);
  ASSERT_FALSE(intervals.empty());
  const double width = intervals[0].max - intervals[0].min;
  for (const ScoreInterval& i : intervals) EXPECT_EQ(i.max - i.min, width);
  // The centre's own box holds the centre's score.
  const double centre = static_cast<double>(ScoreBits(13.25, 38.25));
  EXPECT_LE(intervals[0].min, centre);
  EXPECT_LT(centre, intervals[0].max);
}

// A grid of n x n points named p<i>_<j> at lon0 + i * step, lat0 + j * step (a longitude past
// 180 wrapped), as GEOADD stores them: sorted by score, then member.
std::vector<std::pair<double, std::string>> Grid(double lon0, double lat0, double step, int n) {
  std::vector<std::pair<double, std::string>> set;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double lon = lon0 + i * step;
      if (lon > 180) lon -= 360;
      const double lat = lat0 + j * step;
      std::string name = "p";  // (appended: GCC 12 misreads an inlined operator+ chain)
      name.append(std::to_string(i)).append("_").append(std::to_string(j));
      set.emplace_back(static_cast<double>(ScoreBits(lon, lat)), std::move(name));
    }
  }
  std::sort(set.begin(), set.end());
  return set;
}

// What GEORADIUS / GEOSEARCH reply for `shape` over `set`: the boxes' members within the shape,
// sorted by distance (stably) unless `sort` is 0, at most `limit` found when it is not 0 (ANY).
std::vector<std::string> Search(const std::vector<std::pair<double, std::string>>& set,
                                const Shape& shape, int sort, size_t limit = 0) {
  std::vector<std::pair<double, std::string>> found;
  for (const ScoreInterval& interval : IntervalsToSearch(AreasForShape(shape))) {
    for (const auto& [score, member] : set) {
      if (limit != 0 && found.size() >= limit) break;
      if (score < interval.min || score >= interval.max) continue;
      Point p;
      double distance = 0;
      if (WithinShape(shape, score, &p, &distance)) found.emplace_back(distance, member);
    }
  }
  if (sort != 0) {
    std::stable_sort(found.begin(), found.end(), [&](const auto& a, const auto& b) {
      return sort > 0 ? a.first < b.first : a.first > b.first;
    });
  }
  std::vector<std::string> members;
  members.reserve(found.size());
  for (const auto& f : found) members.push_back(f.second);
  return members;
}

Shape Circle(double lon, double lat, double radius, double conversion) {
  Shape s;
  s.centre = {lon, lat};
  s.radius = radius;
  s.conversion = conversion;
  return s;
}

Shape Box(double lon, double lat, double width, double height, double conversion) {
  Shape s;
  s.kind = Shape::Kind::kBox;
  s.centre = {lon, lat};
  s.width = width;
  s.height = height;
  s.conversion = conversion;
  return s;
}

using Members = std::vector<std::string>;

TEST(GeoSearch, SicilyGridAsRedis) {
  const auto set = Grid(13.0, 38.0, 0.05, 11);
  // GEORADIUS sicily 13.25 38.25 9 km ASC
  EXPECT_EQ(Search(set, Circle(13.25, 38.25, 9, 1000), 1),
            (Members{"p5_5", "p6_5", "p4_5", "p5_4", "p5_6", "p6_6", "p4_6", "p6_4", "p4_4", "p7_5",
                     "p3_5"}));
  // GEOSEARCH sicily FROMLONLAT 13.3 38.2 BYBOX 20 10 km DESC
  EXPECT_EQ(Search(set, Box(13.3, 38.2, 20, 10, 1000), -1),
            (Members{"p8_4", "p4_4", "p7_4", "p5_4", "p6_4"}));
  // ... COUNT 3 ANY: the first three found, sorted only with ASC.
  EXPECT_EQ(Search(set, Circle(13.25, 38.25, 9, 1000), 1, 3), (Members{"p5_5", "p6_5", "p4_5"}));
  EXPECT_EQ(Search(set, Circle(13.25, 38.25, 9, 1000), 0, 3), (Members{"p4_5", "p5_5", "p6_5"}));
}

TEST(GeoSearch, AcrossTheAntimeridianNearTheLimitAsRedis) {
  const auto set = Grid(179.5, 84.5, 0.1, 11);
  // GEORADIUS pole 180 84.9 25 km ASC: longitude 180 encodes past the last box, and Redis finds
  // nothing east of the antimeridian.
  EXPECT_EQ(Search(set, Circle(180, 84.9, 25, 1000), 1),
            (Members{"p5_4", "p4_4", "p3_4", "p2_4", "p1_4", "p0_4", "p5_5", "p5_3",
                     "p4_5", "p4_3", "p3_5", "p3_3", "p2_5", "p2_3", "p1_5", "p1_3",
                     "p0_5", "p0_3", "p5_2", "p4_2", "p3_2", "p2_2", "p1_2", "p0_2"}));
  // GEOSEARCH pole FROMLONLAT -179.8 85 BYBOX 40 30 km ASC
  EXPECT_EQ(
      Search(set, Box(-179.8, 85, 40, 30, 1000), 1),
      (Members{"p7_5", "p6_5", "p8_5", "p9_5", "p10_5", "p4_5", "p3_5", "p2_5", "p1_5", "p0_5",
               "p7_4", "p6_4", "p8_4", "p9_4", "p10_4", "p4_4", "p3_4", "p2_4", "p1_4", "p0_4"}));
}

// Redis's order of equal distances when COUNT keeps fewer than were found: GEOADD t of twelve
// members m00..m11 at 13.5 38.1 and "far" at 13.6 38.1 (found in that order), then
// GEORADIUS t 13.5 38.1 100 km COUNT n DESC (redis-server 7.0.15).
TEST(GeoSort, EqualDistancesInRedisOrder) {
  struct Item {
    std::string member;
    double distance;
  };
  auto run = [](size_t count, int sign) {
    std::vector<Item> items;
    items.reserve(13);
    for (int i = 0; i < 12; ++i)
      items.push_back({(i < 10 ? "m0" : "m1") + std::to_string(i % 10), 0});
    items.push_back({"far", 8000});
    PartialQuickSort(items, 0, count - 1, [&](const Item& a, const Item& b) {
      return sign * (a.distance > b.distance ? 1 : a.distance == b.distance ? 0 : -1);
    });
    std::vector<std::string> members;
    for (size_t i = 0; i < count; ++i) members.push_back(items[i].member);
    return members;
  };
  EXPECT_EQ(run(3, -1), (Members{"far", "m01", "m02"}));
  EXPECT_EQ(run(5, -1), (Members{"far", "m01", "m02", "m03", "m04"}));
  EXPECT_EQ(run(12, -1), (Members{"far", "m01", "m02", "m03", "m04", "m05", "m00", "m07", "m08",
                                  "m09", "m10", "m11"}));
  EXPECT_EQ(run(3, 1), (Members{"m00", "m01", "m02"}));
}

// Whatever the ties, the first `count` items are the smallest, in order.
TEST(GeoSort, PartialSortSortsThePrefix) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t n = 1 + rng() % 120;
    std::vector<int> items(n);
    for (int& v : items) v = static_cast<int>(rng() % (1 + rng() % 50));
    std::vector<int> sorted = items;
    std::sort(sorted.begin(), sorted.end());
    const size_t count = 1 + rng() % n;
    PartialQuickSort(items, 0, count - 1, [](int a, int b) { return a < b ? -1 : a > b ? 1 : 0; });
    ASSERT_TRUE(std::equal(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(count),
                           items.begin()))
        << trial;
    std::sort(items.begin(), items.end());
    ASSERT_EQ(items, sorted);
  }
}

}  // namespace
}  // namespace sluice::server::geo
