#include "server/commands/geo_ops.h"

#include <cmath>
#include <numbers>

namespace sluice::server::geo {
namespace {

// Redis's deg_rad and rad_deg: a multiplication by pi/180 and a division by it, in that order
// of operations, since the results must round as Redis's do.
constexpr double kDegToRad = std::numbers::pi / 180.0;
double DegToRad(double degrees) { return degrees * kDegToRad; }
double RadToDeg(double radians) { return radians / kDegToRad; }

constexpr uint64_t kEvenBits = 0x5555555555555555ULL;
constexpr uint64_t kOddBits = 0xAAAAAAAAAAAAAAAAULL;

constexpr Range kLongRange{kLongMin, kLongMax};
constexpr Range kLatRange{kLatMin, kLatMax};

// Spreads the 32 bits of v to the even positions of a 64-bit word (bit i to bit 2i).
uint64_t Spread(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & kEvenBits;
  return x;
}

// The inverse of Spread: the even bits of x packed into 32 bits.
uint32_t Squash(uint64_t x) {
  x &= kEvenBits;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}

// Moves a hash one box along one axis (+1 or -1), wrapping around at the ends. The axis's bits
// are `axis_mask`'s positions (odd: longitude, even: latitude). Filling the other axis's
// positions below the hash's 2 x step bits with ones lets a carry or borrow run through them;
// the other axis is kept as it was, bits above the step included.
HashBits Move(const HashBits& hash, int direction, uint64_t axis_mask, uint64_t other_mask) {
  uint64_t axis = hash.bits & axis_mask;
  const uint64_t other = hash.bits & other_mask;
  const int shift = 64 - hash.step * 2;
  const uint64_t fill = other_mask >> shift;
  if (direction > 0) {
    axis = axis + (fill + 1);
  } else {
    axis = (axis | fill) - (fill + 1);
  }
  axis &= axis_mask >> shift;
  return {axis | other, hash.step};
}

HashBits MoveLongitude(const HashBits& hash, int direction) {
  return Move(hash, direction, kOddBits, kEvenBits);
}

HashBits MoveLatitude(const HashBits& hash, int direction) {
  return Move(hash, direction, kEvenBits, kOddBits);
}

// A box's scores: its bits followed by zeros to 52 bits, to the same for the next box (which
// for the last box of a step is one past the 52-bit scores).
ScoreInterval IntervalOf(const HashBits& hash) {
  const int shift = 52 - hash.step * 2;
  return {static_cast<double>(hash.bits << shift), static_cast<double>((hash.bits + 1) << shift)};
}

}  // namespace

uint64_t Interleave(uint32_t lat, uint32_t lon) { return Spread(lat) | (Spread(lon) << 1); }

uint64_t Deinterleave(uint64_t bits) {
  return static_cast<uint64_t>(Squash(bits)) | (static_cast<uint64_t>(Squash(bits >> 1)) << 32);
}

bool Encode(const Range& longitude_range, const Range& latitude_range, double longitude,
            double latitude, int step, HashBits* out) {
  if (step < 1 || step > 32) return false;
  if (longitude > kLongMax || longitude < kLongMin || latitude > kLatMax || latitude < kLatMin) {
    return false;
  }
  out->bits = 0;
  out->step = step;
  if (latitude < latitude_range.min || latitude > latitude_range.max ||
      longitude < longitude_range.min || longitude > longitude_range.max) {
    return false;
  }
  double lat_offset = (latitude - latitude_range.min) / (latitude_range.max - latitude_range.min);
  double long_offset =
      (longitude - longitude_range.min) / (longitude_range.max - longitude_range.min);
  // To fixed point: at the top of a range the offset is 2^step, one past the last box.
  lat_offset *= static_cast<double>(1ULL << step);
  long_offset *= static_cast<double>(1ULL << step);
  out->bits = Interleave(static_cast<uint32_t>(lat_offset), static_cast<uint32_t>(long_offset));
  return true;
}

bool Decode(const Range& longitude_range, const Range& latitude_range, const HashBits& hash,
            Area* out) {
  if (hash.IsZero()) return false;
  const uint64_t separated = Deinterleave(hash.bits);
  const double lat_scale = latitude_range.max - latitude_range.min;
  const double long_scale = longitude_range.max - longitude_range.min;
  const auto lat_index = static_cast<uint32_t>(separated);
  const auto long_index = static_cast<uint32_t>(separated >> 32);
  const auto boxes = static_cast<double>(1ULL << hash.step);
  // The index of the next box is 32-bit arithmetic: it wraps to 0 after 2^32 - 1.
  const uint32_t lat_next = lat_index + 1;
  const uint32_t long_next = long_index + 1;
  out->latitude.min = latitude_range.min + (lat_index * 1.0 / boxes) * lat_scale;
  out->latitude.max = latitude_range.min + (lat_next * 1.0 / boxes) * lat_scale;
  out->longitude.min = longitude_range.min + (long_index * 1.0 / boxes) * long_scale;
  out->longitude.max = longitude_range.min + (long_next * 1.0 / boxes) * long_scale;
  return true;
}

Point AreaCentre(const Area& area) {
  Point p;
  p.longitude = (area.longitude.min + area.longitude.max) / 2;
  if (p.longitude > kLongMax) p.longitude = kLongMax;
  if (p.longitude < kLongMin) p.longitude = kLongMin;
  p.latitude = (area.latitude.min + area.latitude.max) / 2;
  if (p.latitude > kLatMax) p.latitude = kLatMax;
  if (p.latitude < kLatMin) p.latitude = kLatMin;
  return p;
}

uint64_t ScoreBits(double longitude, double latitude) {
  HashBits hash;
  Encode(kLongRange, kLatRange, longitude, latitude, kStepMax, &hash);
  return hash.bits;  // step 26: already 52 bits
}

uint64_t BitsOfScore(double score) {
  constexpr double kTwo63 = 9223372036854775808.0;
  constexpr uint64_t kTop = 1ULL << 63;
  // cvttsd2si answers 2^63 for what it cannot convert (NaN, infinities, out of range).
  auto convert = [&](double v) -> uint64_t {
    if (v >= -kTwo63 && v < kTwo63) return static_cast<uint64_t>(static_cast<int64_t>(v));
    return kTop;
  };
  if (!(score >= kTwo63)) return convert(score);
  return convert(score - kTwo63) ^ kTop;
}

Point DecodeScore(double score) {
  Area area;
  Decode(kLongRange, kLatRange, {BitsOfScore(score), kStepMax}, &area);
  return AreaCentre(area);
}

std::string GeohashString(double score) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  const Point p = DecodeScore(score);
  // Re-encoded with the standard latitude range, as geohash.org reads it.
  HashBits hash;
  Encode({-180, 180}, {-90, 90}, p.longitude, p.latitude, kStepMax, &hash);
  std::string out(11, '0');
  for (int i = 0; i < 10; ++i) out[i] = kAlphabet[(hash.bits >> (52 - (i + 1) * 5)) & 0x1f];
  // 52 bits make ten characters and two bits: the eleventh is always '0', as Redis's.
  return out;
}

double Distance(double lon1, double lat1, double lon2, double lat2) {
  const double lat1r = DegToRad(lat1);
  const double lon1r = DegToRad(lon1);
  const double lat2r = DegToRad(lat2);
  const double lon2r = DegToRad(lon2);
  const double u = std::sin((lat2r - lat1r) / 2);
  const double v = std::sin((lon2r - lon1r) / 2);
  return 2.0 * kEarthRadiusMeters *
         std::asin(std::sqrt(u * u + std::cos(lat1r) * std::cos(lat2r) * v * v));
}

Neighbors NeighborsOf(const HashBits& hash) {
  Neighbors n;
  n.east = MoveLongitude(hash, 1);
  n.west = MoveLongitude(hash, -1);
  n.south = MoveLatitude(hash, -1);
  n.north = MoveLatitude(hash, 1);
  n.north_west = MoveLatitude(MoveLongitude(hash, -1), 1);
  n.south_west = MoveLatitude(MoveLongitude(hash, -1), -1);
  n.north_east = MoveLatitude(MoveLongitude(hash, 1), 1);
  n.south_east = MoveLatitude(MoveLongitude(hash, 1), -1);
  return n;
}

int EstimateSteps(double range_meters, double latitude) {
  if (range_meters == 0) return kStepMax;
  int step = 1;
  while (range_meters < kMercatorMax) {
    range_meters *= 2;
    step++;
  }
  step -= 2;  // a box a little larger than the search, in most cases
  // Boxes narrow towards the poles: one step coarser past 66 degrees, two past 80.
  if (latitude > 66 || latitude < -66) {
    step--;
    if (latitude > 80 || latitude < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > kStepMax) step = kStepMax;
  return step;
}

std::array<double, 4> BoundingBox(const Shape& shape) {
  const double longitude = shape.centre.longitude;
  const double latitude = shape.centre.latitude;
  const bool circle = shape.kind == Shape::Kind::kCircle;
  const double height = shape.conversion * (circle ? shape.radius : shape.height / 2);
  const double width = shape.conversion * (circle ? shape.radius : shape.width / 2);
  const double lat_delta = RadToDeg(height / kEarthRadiusMeters);
  // A degree of longitude is shorter nearer the pole: the box's edge nearer the pole is wider.
  const double long_delta_top =
      RadToDeg(width / kEarthRadiusMeters / std::cos(DegToRad(latitude + lat_delta)));
  const double long_delta_bottom =
      RadToDeg(width / kEarthRadiusMeters / std::cos(DegToRad(latitude - lat_delta)));
  const bool southern = latitude < 0;
  const double long_delta = southern ? long_delta_bottom : long_delta_top;
  return {longitude - long_delta, latitude - lat_delta, longitude + long_delta,
          latitude + lat_delta};
}

SearchAreas AreasForShape(const Shape& shape) {
  const std::array<double, 4> bounds = BoundingBox(shape);
  const double min_lon = bounds[0];
  const double min_lat = bounds[1];
  const double max_lon = bounds[2];
  const double max_lat = bounds[3];
  const double longitude = shape.centre.longitude;
  const double latitude = shape.centre.latitude;
  // A box's size is the distance from its centre to a corner.
  double radius_meters = shape.kind == Shape::Kind::kCircle
                             ? shape.radius
                             : std::sqrt((shape.width / 2) * (shape.width / 2) +
                                         (shape.height / 2) * (shape.height / 2));
  radius_meters *= shape.conversion;

  int steps = EstimateSteps(radius_meters, latitude);
  SearchAreas out;
  Encode(kLongRange, kLatRange, longitude, latitude, steps, &out.hash);
  out.neighbors = NeighborsOf(out.hash);
  Decode(kLongRange, kLatRange, out.hash, &out.area);

  // Near an edge of the centre's box, a neighbour may not reach as far as the search does:
  // one step coarser then.
  Area north, south, east, west;
  Decode(kLongRange, kLatRange, out.neighbors.north, &north);
  Decode(kLongRange, kLatRange, out.neighbors.south, &south);
  Decode(kLongRange, kLatRange, out.neighbors.east, &east);
  Decode(kLongRange, kLatRange, out.neighbors.west, &west);
  const bool decrease_step = north.latitude.max < max_lat || south.latitude.min > min_lat ||
                             east.longitude.max < max_lon || west.longitude.min > min_lon;
  if (steps > 1 && decrease_step) {
    steps--;
    Encode(kLongRange, kLatRange, longitude, latitude, steps, &out.hash);
    out.neighbors = NeighborsOf(out.hash);
    Decode(kLongRange, kLatRange, out.hash, &out.area);
  }

  // Neighbours on a side the search does not reach past the centre's box are not read.
  if (steps >= 2) {
    Neighbors& n = out.neighbors;
    if (out.area.latitude.min < min_lat) n.south = n.south_west = n.south_east = HashBits{};
    if (out.area.latitude.max > max_lat) n.north = n.north_east = n.north_west = HashBits{};
    if (out.area.longitude.min < min_lon) n.west = n.south_west = n.north_west = HashBits{};
    if (out.area.longitude.max > max_lon) n.east = n.south_east = n.north_east = HashBits{};
  }
  return out;
}

std::vector<ScoreInterval> IntervalsToSearch(const SearchAreas& areas) {
  const Neighbors& n = areas.neighbors;
  const HashBits boxes[9] = {areas.hash,   n.north,      n.south,      n.east,      n.west,
                             n.north_east, n.north_west, n.south_east, n.south_west};
  std::vector<ScoreInterval> out;
  int last_read = 0;  // 0: none yet, or the centre (never compared, as in Redis)
  for (int i = 0; i < 9; ++i) {
    if (boxes[i].IsZero()) continue;
    // A huge search can make adjacent neighbours the same box: one read is enough.
    if (last_read != 0 && boxes[i] == boxes[last_read]) continue;
    out.push_back(IntervalOf(boxes[i]));
    last_read = i;
  }
  return out;
}

bool WithinShape(const Shape& shape, double score, Point* position, double* distance_meters) {
  *position = DecodeScore(score);
  const double x1 = shape.centre.longitude;
  const double y1 = shape.centre.latitude;
  const double x2 = position->longitude;
  const double y2 = position->latitude;
  if (shape.kind == Shape::Kind::kCircle) {
    *distance_meters = Distance(x1, y1, x2, y2);
    return *distance_meters <= shape.radius * shape.conversion;
  }
  // In the box if its distances from the centre along the parallel and along the meridian are
  // within half the box's width and height.
  const double width_m = shape.width * shape.conversion;
  const double height_m = shape.height * shape.conversion;
  const double lon_distance = Distance(x2, y2, x1, y2);
  const double lat_distance = Distance(x2, y2, x2, y1);
  if (lon_distance > width_m / 2 || lat_distance > height_m / 2) return false;
  *distance_meters = Distance(x1, y1, x2, y2);
  return true;
}

}  // namespace sluice::server::geo
