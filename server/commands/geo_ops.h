#pragma once

// The geospatial math of GEOADD, GEOPOS, GEOHASH, GEODIST and the GEORADIUS / GEOSEARCH family,
// as Redis 7.0 computes it (geohash.c, geohash_helper.c, geo.c), so that a geo set's scores
// and every reply match Redis's bit for bit; no I/O.
//
// A position is a 52-bit score: the longitude (-180..180) and the latitude (Web Mercator's
// -85.05112878..85.05112878) are each scaled to a 26-bit integer (offset from the range's
// minimum, times 2^26, truncated), and their bits interleaved, the latitude's in the even
// positions and the longitude's in the odd ones, so the top bits form a coarse box and each
// further pair of bits halves it. A score decodes to the centre of its 2^-26 box (clamped to
// the ranges). Reading it from the left, five bits at a time (after re-encoding with the
// latitude range -90..90), gives a standard geohash string.
//
// A search (a circle or a box around a centre) looks at the geohash box of the centre at a
// step (bits per axis) chosen from the search's size, and its eight neighbours, some of them
// dropped when the search's bounding box cannot reach them; each box is one score interval of
// the sorted set, and every member in it is tested against the shape with the haversine
// distance on a sphere of Redis's radius (6372797.560856 m). Redis's quirks are kept on
// purpose: neighbours wrap around at the poles as at the antimeridian, a coordinate at the top
// of its range encodes one past the last box, and a score that is not a geohash decodes as
// x86-64 converts a double to an unsigned integer.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sluice::server::geo {

inline constexpr double kLongMin = -180;
inline constexpr double kLongMax = 180;
inline constexpr double kLatMin = -85.05112878;
inline constexpr double kLatMax = 85.05112878;
inline constexpr int kStepMax = 26;  // bits per axis in a stored score (52 in all)
inline constexpr double kEarthRadiusMeters = 6372797.560856;
// Half the Earth's circumference in Web Mercator metres: the search size that needs step 1.
inline constexpr double kMercatorMax = 20037726.37;

struct Range {
  double min = 0;
  double max = 0;
};

// `step` bits of each axis, interleaved; step 0 with no bits is "no box" (a dropped neighbour).
struct HashBits {
  uint64_t bits = 0;
  int step = 0;

  bool IsZero() const { return bits == 0 && step == 0; }
  bool operator==(const HashBits&) const = default;
};

struct Area {
  Range longitude;
  Range latitude;
};

struct Point {
  double longitude = 0;
  double latitude = 0;
};

// Spreads the 32 bits of `lat` to the even bit positions and those of `lon` to the odd ones.
uint64_t Interleave(uint32_t lat, uint32_t lon);
// The inverse: the even bits in the low half of the result, the odd bits in the high half.
uint64_t Deinterleave(uint64_t bits);

// Encodes a position at `step` bits per axis within the ranges. False (and *out untouched but
// for its step) when the position is outside Redis's limits or the ranges.
bool Encode(const Range& longitude_range, const Range& latitude_range, double longitude,
            double latitude, int step, HashBits* out);
// The box a hash stands for; false for a zero hash.
bool Decode(const Range& longitude_range, const Range& latitude_range, const HashBits& hash,
            Area* out);
// The centre of a box, clamped to the coordinate limits.
Point AreaCentre(const Area& area);

// A stored score for a position that is within the limits (GEOADD's): the hash at step 26.
uint64_t ScoreBits(double longitude, double latitude);
// A score as the integer Redis decodes it ((uint64_t)score compiled for x86-64: a negative
// score wraps, one from 2^63 on is reduced by 2^63 first, infinities and scores from 2^64 on
// give 0 or 2^63).
uint64_t BitsOfScore(double score);
// The position a score stands for (GEOPOS's).
Point DecodeScore(double score);
// GEOHASH's eleven characters for a score.
std::string GeohashString(double score);

// The haversine distance in metres between two positions in degrees.
double Distance(double lon1, double lat1, double lon2, double lat2);

// The neighbours of a box at the same step (wrapping around in both directions).
struct Neighbors {
  HashBits north, east, west, south, north_east, south_east, north_west, south_west;
};
Neighbors NeighborsOf(const HashBits& hash);

// The step whose boxes are about as large as a search of `range_meters` around `latitude`.
int EstimateSteps(double range_meters, double latitude);

// What a search looks for: within `radius`, or within a `width` x `height` box (both centred on
// `centre`, in the unit whose metres are `conversion`).
struct Shape {
  enum class Kind { kCircle, kBox };
  Kind kind = Kind::kCircle;
  Point centre;
  double conversion = 1;
  double radius = 0;
  double width = 0;
  double height = 0;
};

// The longitude and latitude bounds of a shape: {min_lon, min_lat, max_lon, max_lat}.
std::array<double, 4> BoundingBox(const Shape& shape);

// The boxes to search: the centre's box then its neighbours (north, south, east, west,
// north-east, north-west, south-east, south-west), those the search cannot reach zeroed.
struct SearchAreas {
  HashBits hash;
  Neighbors neighbors;
  Area area;
};
SearchAreas AreasForShape(const Shape& shape);

// A box's scores: [min, max), as the sorted set's range to read.
struct ScoreInterval {
  double min = 0;
  double max = 0;
};
// The intervals to read, in Redis's order, without zeroed boxes and without a box equal to the
// one read before it (but for the centre's, which Redis never compares).
std::vector<ScoreInterval> IntervalsToSearch(const SearchAreas& areas);

// Whether a member with `score` lies within the shape; if so, its position and its distance
// from the centre in metres.
bool WithinShape(const Shape& shape, double score, Point* position, double* distance_meters);

namespace internal {

// PartialQuickSort's work on items [a, a + n), with [lo, hi] the positions wanted.
template <typename T, typename Compare>
void PartialQuickSortRange(std::vector<T>& items, std::ptrdiff_t a, std::ptrdiff_t n,
                           std::ptrdiff_t lo, std::ptrdiff_t hi, Compare& compare) {
  using Index = std::ptrdiff_t;
  auto at = [&](Index i) -> T& { return items[static_cast<size_t>(i)]; };
  auto med3 = [&](Index x, Index y, Index z) {
    if (compare(at(x), at(y)) < 0) {
      if (compare(at(y), at(z)) < 0) return y;
      return compare(at(x), at(z)) < 0 ? z : x;
    }
    if (compare(at(y), at(z)) > 0) return y;
    return compare(at(x), at(z)) < 0 ? x : z;
  };
  auto swap_runs = [&](Index x, Index y, Index count) {
    for (Index i = 0; i < count; ++i) std::swap(at(x + i), at(y + i));
  };
  // Whether items [x, x + count) hold any of the positions wanted.
  auto wanted = [&](Index x, Index count) { return !(hi < x || lo >= x + count); };
  while (true) {
    if (n < 7) {
      for (Index m = a + 1; m < a + n; ++m) {
        for (Index l = m; l > a && compare(at(l - 1), at(l)) > 0; --l) std::swap(at(l), at(l - 1));
      }
      return;
    }
    Index pm = a + n / 2;
    if (n > 7) {
      Index pl = a;
      Index pn = a + n - 1;
      if (n > 40) {
        const Index d = n / 8;
        pl = med3(pl, pl + d, pl + 2 * d);
        pm = med3(pm - d, pm, pm + d);
        pn = med3(pn - 2 * d, pn - d, pn);
      }
      pm = med3(pl, pm, pn);
    }
    std::swap(at(a), at(pm));
    Index pa = a + 1, pb = a + 1;
    Index pc = a + n - 1, pd = a + n - 1;
    while (true) {
      int r = 0;
      while (pb <= pc && (r = compare(at(pb), at(a))) <= 0) {
        if (r == 0) std::swap(at(pa++), at(pb));
        ++pb;
      }
      while (pb <= pc && (r = compare(at(pc), at(a))) >= 0) {
        if (r == 0) std::swap(at(pc), at(pd--));
        --pc;
      }
      if (pb > pc) break;
      std::swap(at(pb++), at(pc--));
    }
    const Index pn = a + n;
    Index r = std::min(pa - a, pb - pa);
    swap_runs(a, pb - r, r);
    r = std::min(pd - pc, pn - pd - 1);
    swap_runs(pb, pn - r, r);
    if ((r = pb - pa) > 1 && wanted(a, r)) PartialQuickSortRange(items, a, r, lo, hi, compare);
    if ((r = pd - pc) <= 1) return;
    a = pn - r;  // the greater part: iterate rather than recurse
    n = r;
    if (!wanted(a, n)) return;
  }
}

}  // namespace internal

// Sorts items[first..last] (inclusive) into place as Redis's pqsort does when COUNT keeps
// fewer results than were found: Bentley and McIlroy's quicksort ("Engineering a Sort
// Function", 1993: a median of three, or a pseudo-median of nine past 40 items, as the pivot;
// items equal to it gathered at both ends and swapped to the middle; insertion sort below 7
// items), recursing only into the parts that overlap [first, last]. It is not stable: results
// at equal distances come out in the order it leaves them, which is Redis's.
// `compare(a, b)` answers <0, 0 or >0.
template <typename T, typename Compare>
void PartialQuickSort(std::vector<T>& items, size_t first, size_t last, Compare compare) {
  if (items.empty()) return;
  internal::PartialQuickSortRange(items, 0, static_cast<std::ptrdiff_t>(items.size()),
                                  static_cast<std::ptrdiff_t>(first),
                                  static_cast<std::ptrdiff_t>(last), compare);
}

}  // namespace sluice::server::geo
