// Geo commands: GEOADD GEODIST GEOHASH GEOPOS GEORADIUS GEORADIUSBYMEMBER (and their _RO forms)
// GEOSEARCH GEOSEARCHSTORE, with Redis 7.0's arguments, replies and errors (geo.c). A geo set
// is a sorted set whose scores are 52-bit geohashes (geo_ops.h has the math), read and written
// through storage::ZSetType, so ZRANGE, ZREM and the rest see what Redis's would.
//
// Numbers in replies are Redis's: distances "%.4f" bulk strings (RESP3 too), coordinates
// "%.17Lf" without trailing zeros (a bulk string in RESP2, a double in RESP3), hashes integers.
//
// Every command looks its source up once; members and score ranges are read under the record
// found. A search reads the source's type first (WRONGTYPE before any argument error), then
// the arguments in order, with a FROMMEMBER or BYMEMBER member read where it comes, so errors
// come in Redis's order; then the geohash boxes of geo_ops.h, each one score range of the set.
// Results are sorted by distance when asked, or when COUNT is given without ANY: stably (equal
// distances keep the order the boxes were read in), or, when COUNT keeps fewer than were found,
// with Redis's partial quicksort, which leaves equal distances in an order of its own.

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"
#include "server/commands/commands.h"
#include "server/commands/geo_ops.h"
#include "server/commands/helpers.h"
#include "server/commands/member_scores.h"
#include "server/commands/zset_reply.h"
#include "server/keyspace_events.h"
#include "storage/composite.h"
#include "storage/record.h"
#include "storage/zset_type.h"

namespace sluice::server {
namespace {

using storage::ScoredMember;
using storage::ZSetType;

constexpr std::string_view kUnsupportedUnit = "unsupported unit provided. please use M, KM, FT, MI";
constexpr std::string_view kCouldNotDecode = "could not decode requested zset member";

// ---- Arguments and reply pieces --------------------------------------------------------------

// Metres per unit, Redis's extractUnitOrReply (keywords compared as C strings).
StatusOr<double> ParseDistanceUnit(std::string_view unit) {
  if (IsCKeyword(unit, "m")) return 1.0;
  if (IsCKeyword(unit, "km")) return 1000.0;
  if (IsCKeyword(unit, "ft")) return 0.3048;
  if (IsCKeyword(unit, "mi")) return 1609.34;
  return Err(std::string(kUnsupportedUnit));
}

// A longitude and latitude within Redis's limits (extractLongLatOrReply).
StatusOr<geo::Point> ParseLongLat(std::string_view longitude, std::string_view latitude) {
  geo::Point p;
  if (!ParseDouble(longitude, &p.longitude) || !ParseDouble(latitude, &p.latitude)) {
    return NotFloatError();
  }
  if (p.longitude < geo::kLongMin || p.longitude > geo::kLongMax || p.latitude < geo::kLatMin ||
      p.latitude > geo::kLatMax) {
    // "%f" of a double takes up to 317 characters (-1e308 has 309 digits before the point).
    char text[768];
    std::snprintf(text, sizeof(text), "invalid longitude,latitude pair %f,%f", p.longitude,
                  p.latitude);
    return Err(text);
  }
  return p;
}

// A number with Redis's getDoubleFromObjectOrReply and its own error text.
StatusOr<double> ParseNumber(std::string_view arg, std::string_view error) {
  double value = 0;
  if (!ParseDouble(arg, &value)) return Err(std::string(error));
  return value;
}

// A distance in metres: "%.4f", a bulk string in both protocols (addReplyDoubleDistance).
void ReplyDistance(CommandContext& ctx, double distance) {
  char text[512];
  const int n = std::snprintf(text, sizeof(text), "%.4f", distance);
  ctx.reply.Bulk(std::string_view(text, static_cast<size_t>(n)));
}

// A coordinate as addReplyHumanLongDouble sends it.
void ReplyCoordinate(CommandContext& ctx, double value) {
  ctx.reply.DoubleText(value, FormatLongDouble(value));
}

// ---- GEOADD key [NX|XX] [CH] longitude latitude member [...] ----------------------------------

struct GeoAddArgs {
  storage::ZAddOptions options;
  bool ch = false;
  std::vector<storage::ScoreMemberArg> pairs;
};

// geoaddCommand, then ZADD's own check of what it was handed: options, then whole triples
// (none is ZADD's syntax error), then each position.
StatusOr<GeoAddArgs> ParseGeoAdd(Args args) {
  GeoAddArgs parsed;
  size_t i = 2;
  for (; i < args.size(); ++i) {
    if (IsCKeyword(args[i], "nx")) {
      parsed.options.nx = true;
    } else if (IsCKeyword(args[i], "xx")) {
      parsed.options.xx = true;
    } else if (IsCKeyword(args[i], "ch")) {
      parsed.ch = true;
    } else {
      break;
    }
  }
  const size_t rest = args.size() - i;
  if (rest % 3 != 0 || (parsed.options.nx && parsed.options.xx) || rest == 0) {
    return SyntaxError();
  }
  for (; i < args.size(); i += 3) {
    StatusOr<geo::Point> p = ParseLongLat(args[i], args[i + 1]);
    if (!p.ok()) return p.status();
    // The score goes to ZADD as an integer's text, which it reads back as a double.
    const uint64_t bits = geo::ScoreBits(p->longitude, p->latitude);
    parsed.pairs.push_back({static_cast<double>(bits), args[i + 2]});
  }
  return parsed;
}

void GeoAddCommand(CommandContext& ctx, Args args) {
  StatusOr<GeoAddArgs> parsed = ParseGeoAdd(args);
  if (ReplyIfError(ctx, parsed.status())) return;
  auto result = ZSets(ctx).Add(args[1], parsed->options, parsed->pairs);
  if (ReplyIfError(ctx, result.status())) return;
  // GEOADD is ZADD to Redis, events included.
  NotifyKeyspaceEventIf(ctx, result->added + result->updated > 0, kNotifyZset, "zadd", args[1]);
  ctx.reply.Int(static_cast<int64_t>(parsed->ch ? result->added + result->updated : result->added));
}

// ---- GEODIST, GEOHASH, GEOPOS ---------------------------------------------------------------

// GEODIST key member1 member2 [unit]: the unit is read before the key; nil for a missing key or
// member.
void GeoDistCommand(CommandContext& ctx, Args args) {
  double to_meters = 1;
  if (args.size() == 5) {
    StatusOr<double> unit = ParseDistanceUnit(args[4]);
    if (ReplyIfError(ctx, unit.status())) return;
    to_meters = *unit;
  } else if (args.size() > 5) {
    ReplyError(ctx, SyntaxError());
    return;
  }
  std::vector<std::optional<double>> scores;
  if (!ReadMemberScores(ctx, args[1], args.subspan(2, 2), &scores)) return;
  if (!scores[0] || !scores[1]) {  // a missing member, or key
    ctx.reply.Null();
    return;
  }
  const geo::Point a = geo::DecodeScore(*scores[0]);
  const geo::Point b = geo::DecodeScore(*scores[1]);
  ReplyDistance(ctx, geo::Distance(a.longitude, a.latitude, b.longitude, b.latitude) / to_meters);
}

void GeoHashCommand(CommandContext& ctx, Args args) {
  std::vector<std::optional<double>> scores;
  if (!ReadMemberScores(ctx, args[1], args.subspan(2), &scores)) return;
  ctx.reply.Array(static_cast<int64_t>(scores.size()));
  for (const auto& score : scores) {
    if (score) {
      ctx.reply.Bulk(geo::GeohashString(*score));
    } else {
      ctx.reply.Null();
    }
  }
}

void GeoPosCommand(CommandContext& ctx, Args args) {
  std::vector<std::optional<double>> scores;
  if (!ReadMemberScores(ctx, args[1], args.subspan(2), &scores)) return;
  ctx.reply.Array(static_cast<int64_t>(scores.size()));
  for (const auto& score : scores) {
    if (!score) {
      ctx.reply.NullArray();
      continue;
    }
    const geo::Point p = geo::DecodeScore(*score);
    ctx.reply.Array(2);
    ReplyCoordinate(ctx, p.longitude);
    ReplyCoordinate(ctx, p.latitude);
  }
}

// ---- GEORADIUS, GEORADIUSBYMEMBER, GEOSEARCH, GEOSEARCHSTORE -----------------------------------

// The six commands of georadiusGeneric, by what they take.
struct SearchCommand {
  bool by_coords = false;     // GEORADIUS[_RO] key longitude latitude radius unit
  bool by_member = false;     // GEORADIUSBYMEMBER[_RO] key member radius unit
  bool search = false;        // GEOSEARCH / GEOSEARCHSTORE: FROM... and BY... options
  bool search_store = false;  // GEOSEARCHSTORE destination source
  bool no_store = false;      // the _RO forms: no STORE / STOREDIST
  size_t source = 1;          // the source key's index
};

constexpr SearchCommand kGeoRadius{.by_coords = true};
constexpr SearchCommand kGeoRadiusRo{.by_coords = true, .no_store = true};
constexpr SearchCommand kGeoRadiusByMember{.by_member = true};
constexpr SearchCommand kGeoRadiusByMemberRo{.by_member = true, .no_store = true};
constexpr SearchCommand kGeoSearch{.search = true};
constexpr SearchCommand kGeoSearchStore{.search = true, .search_store = true, .source = 2};

enum class SortOrder { kNone, kAsc, kDesc };

struct SearchArgs {
  geo::Shape shape;
  bool with_dist = false;
  bool with_hash = false;
  bool with_coord = false;
  SortOrder sort = SortOrder::kNone;
  bool any = false;
  int64_t count = 0;  // 0: all
  std::optional<std::string_view> store_key;
  bool store_dist = false;
};

// A member's position in the source; nullopt when it has no such member.
using MemberPosition = std::function<StatusOr<std::optional<geo::Point>>(std::string_view)>;

// A radius and its unit (extractDistanceOrReply).
Status ParseRadius(std::string_view radius, std::string_view unit, geo::Shape* shape) {
  StatusOr<double> r = ParseNumber(radius, "need numeric radius");
  if (!r.ok()) return r.status();
  if (*r < 0) return Err("radius cannot be negative");
  StatusOr<double> to_meters = ParseDistanceUnit(unit);
  if (!to_meters.ok()) return to_meters.status();
  shape->kind = geo::Shape::Kind::kCircle;
  shape->radius = *r;
  shape->conversion = *to_meters;
  return Status::Ok();
}

// A width, a height and their unit (extractBoxOrReply).
Status ParseBox(Args args, geo::Shape* shape) {
  StatusOr<double> width = ParseNumber(args[0], "need numeric width");
  if (!width.ok()) return width.status();
  StatusOr<double> height = ParseNumber(args[1], "need numeric height");
  if (!height.ok()) return height.status();
  if (*height < 0 || *width < 0) return Err("height or width cannot be negative");
  StatusOr<double> to_meters = ParseDistanceUnit(args[2]);
  if (!to_meters.ok()) return to_meters.status();
  shape->kind = geo::Shape::Kind::kBox;
  shape->width = *width;
  shape->height = *height;
  shape->conversion = *to_meters;
  return Status::Ok();
}

// The centre at a member of the source.
Status CentreAtMember(const MemberPosition& position, std::string_view member, geo::Shape* shape) {
  StatusOr<std::optional<geo::Point>> p = position(member);
  if (!p.ok()) return p.status();
  if (!p->has_value()) return Err(std::string(kCouldNotDecode));
  shape->centre = **p;
  return Status::Ok();
}

// georadiusGeneric's parsing, in its order: the fixed arguments (a member only when the source
// exists; GEORADIUSBYMEMBER of a missing source reads neither member nor radius), the options
// one by one, then the checks of what they add up to.
StatusOr<SearchArgs> ParseSearch(Args args, const SearchCommand& command, bool source_exists,
                                 const MemberPosition& position) {
  SearchArgs parsed;
  geo::Shape& shape = parsed.shape;
  size_t base = 0;
  if (command.by_coords) {
    base = 6;
    StatusOr<geo::Point> centre = ParseLongLat(args[2], args[3]);
    if (!centre.ok()) return centre.status();
    shape.centre = *centre;
    SLUICE_RETURN_IF_ERROR(ParseRadius(args[4], args[5], &shape));
  } else if (command.by_member) {
    base = 5;
    if (source_exists) {
      SLUICE_RETURN_IF_ERROR(CentreAtMember(position, args[2], &shape));
      SLUICE_RETURN_IF_ERROR(ParseRadius(args[3], args[4], &shape));
    }
  } else {
    base = command.search_store ? 3 : 2;
    if (command.search_store) parsed.store_key = args[1];
  }
  bool from_member = false, from_lonlat = false, by_radius = false, by_box = false;
  for (size_t i = base; i < args.size(); ++i) {
    const size_t more = args.size() - i - 1;  // arguments after this one
    std::string_view arg = args[i];
    const bool store_ok = !command.no_store && !command.search;
    if (IsCKeyword(arg, "withdist")) {
      parsed.with_dist = true;
    } else if (IsCKeyword(arg, "withhash")) {
      parsed.with_hash = true;
    } else if (IsCKeyword(arg, "withcoord")) {
      parsed.with_coord = true;
    } else if (IsCKeyword(arg, "any")) {
      parsed.any = true;
    } else if (IsCKeyword(arg, "asc")) {
      parsed.sort = SortOrder::kAsc;
    } else if (IsCKeyword(arg, "desc")) {
      parsed.sort = SortOrder::kDesc;
    } else if (IsCKeyword(arg, "count") && more >= 1) {
      if (!ParseInt64(args[i + 1], &parsed.count)) return NotIntegerError();
      if (parsed.count <= 0) return Err("COUNT must be > 0");
      ++i;
    } else if (IsCKeyword(arg, "store") && more >= 1 && store_ok) {
      parsed.store_key = args[++i];
      parsed.store_dist = false;
    } else if (IsCKeyword(arg, "storedist") && more >= 1 && store_ok) {
      parsed.store_key = args[++i];
      parsed.store_dist = true;
    } else if (IsCKeyword(arg, "storedist") && command.search_store) {
      parsed.store_dist = true;
    } else if (IsCKeyword(arg, "frommember") && more >= 1 && command.search && !from_lonlat) {
      // Without a source there is nothing to look up; the arguments are still read.
      if (source_exists) SLUICE_RETURN_IF_ERROR(CentreAtMember(position, args[i + 1], &shape));
      from_member = true;
      ++i;
    } else if (IsCKeyword(arg, "fromlonlat") && more >= 2 && command.search && !from_member) {
      StatusOr<geo::Point> centre = ParseLongLat(args[i + 1], args[i + 2]);
      if (!centre.ok()) return centre.status();
      shape.centre = *centre;
      from_lonlat = true;
      i += 2;
    } else if (IsCKeyword(arg, "byradius") && more >= 2 && command.search && !by_box) {
      SLUICE_RETURN_IF_ERROR(ParseRadius(args[i + 1], args[i + 2], &shape));
      by_radius = true;
      i += 2;
    } else if (IsCKeyword(arg, "bybox") && more >= 3 && command.search && !by_radius) {
      SLUICE_RETURN_IF_ERROR(ParseBox(args.subspan(i + 1, 3), &shape));
      by_box = true;
      i += 3;
    } else {
      return SyntaxError();
    }
  }
  if (parsed.store_key && (parsed.with_dist || parsed.with_hash || parsed.with_coord)) {
    return Err(std::string(command.search_store ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS") +
               " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
  }
  // Redis prints the command's name as it was typed.
  const std::string name(resp::CString(args[0]));
  if (command.search && !(from_member || from_lonlat)) {
    return Err("exactly one of FROMMEMBER or FROMLONLAT can be specified for " + name);
  }
  if (command.search && !(by_radius || by_box)) {
    return Err("exactly one of BYRADIUS and BYBOX can be specified for " + name);
  }
  if (parsed.any && parsed.count == 0) return Err("the ANY argument requires COUNT argument");
  return parsed;
}

struct Found {
  std::string member;
  double score = 0;
  double distance = 0;  // metres
  geo::Point position;
};

// The members within the shape, box after box in Redis's order and each box in score order;
// with a `limit`, no more than that many (ANY).
StatusOr<std::vector<Found>> FindMembers(ZSetType& zsets, std::string_view key,
                                         const storage::Record& record, const geo::Shape& shape,
                                         uint64_t limit) {
  std::vector<storage::ScoreRange> boxes;
  for (const geo::ScoreInterval& interval : geo::IntervalsToSearch(geo::AreasForShape(shape))) {
    boxes.push_back({interval.min, interval.max, false, true});
  }
  std::vector<Found> found;
  Status walked = zsets.RangesByScoreOf(key, record, boxes, [&](ScoredMember m) {
    Found f;
    if (geo::WithinShape(shape, m.score, &f.position, &f.distance)) {
      f.member = std::move(m.member);
      f.score = m.score;
      found.push_back(std::move(f));
    }
    return limit == 0 || found.size() < limit;
  });
  if (!walked.ok()) return walked;
  return found;
}

// Redis's order: by distance, all of them with glibc's qsort (a merge sort: equal distances
// keep the order found), or only the first `returned` with its partial quicksort (pqsort) when
// COUNT keeps fewer, which orders equal distances its own way.
void SortFound(std::vector<Found>& found, size_t returned, SortOrder order) {
  const int sign = order == SortOrder::kDesc ? -1 : 1;
  if (returned == found.size()) {
    std::stable_sort(found.begin(), found.end(), [&](const Found& a, const Found& b) {
      return sign > 0 ? a.distance < b.distance : a.distance > b.distance;
    });
  } else if (returned > 0) {
    geo::PartialQuickSort(found, 0, returned - 1, [&](const Found& a, const Found& b) {
      const int ascending = a.distance > b.distance ? 1 : a.distance == b.distance ? 0 : -1;
      return sign * ascending;
    });
  }
}

void ReplyFound(CommandContext& ctx, const SearchArgs& parsed, const std::vector<Found>& found,
                size_t returned) {
  const int options =
      (parsed.with_dist ? 1 : 0) + (parsed.with_hash ? 1 : 0) + (parsed.with_coord ? 1 : 0);
  ctx.reply.Array(static_cast<int64_t>(returned));
  for (size_t i = 0; i < returned; ++i) {
    const Found& f = found[i];
    if (options > 0) ctx.reply.Array(options + 1);
    ctx.reply.Bulk(f.member);
    if (parsed.with_dist) ReplyDistance(ctx, f.distance / parsed.shape.conversion);
    if (parsed.with_hash) ctx.reply.Int(static_cast<int64_t>(f.score));
    if (parsed.with_coord) {
      ctx.reply.Array(2);
      ReplyCoordinate(ctx, f.position.longitude);
      ReplyCoordinate(ctx, f.position.latitude);
    }
  }
}

// The first `returned` members replace the destination: with their scores, or their distances
// in the search's unit (STOREDIST); none deletes it.
Status StoreFound(ZSetType& zsets, const SearchArgs& parsed, const std::vector<Found>& found,
                  size_t returned) {
  std::vector<ScoredMember> members;
  members.reserve(returned);
  std::unordered_set<std::string_view> seen;  // (the boxes never overlap; kept distinct anyway)
  for (size_t i = 0; i < returned; ++i) {
    const Found& f = found[i];
    if (!seen.insert(f.member).second) continue;
    members.push_back(
        {f.member, parsed.store_dist ? f.distance / parsed.shape.conversion : f.score});
  }
  return zsets.Replace(*parsed.store_key, members);
}

template <const SearchCommand& kCommand>
void GeoSearchCommand(CommandContext& ctx, Args args) {
  const std::string_view key = args[kCommand.source];
  ZSetType zsets = ZSets(ctx);
  std::optional<storage::Record> source;
  {
    // The source is a read, also for the write forms (GEORADIUS, GEOSEARCHSTORE), which the
    // dispatcher does not count: Redis's lookupKeyRead. The destination's lookups, after this
    // scope, are a write's.
    LookupCounting source_counted(ctx, true);
    if (!LookupTyped(ctx, key, storage::KeyType::kZSet, &source)) return;
  }
  MemberPosition position = [&](std::string_view member) -> StatusOr<std::optional<geo::Point>> {
    StatusOr<std::optional<double>> score = zsets.ScoreOf(key, *source, member);
    if (!score.ok()) return score.status();
    if (!score->has_value()) return std::optional<geo::Point>();
    return std::optional<geo::Point>(geo::DecodeScore(**score));
  };
  StatusOr<SearchArgs> parsed = ParseSearch(args, kCommand, source.has_value(), position);
  if (ReplyIfError(ctx, parsed.status())) return;
  if (!source.has_value()) {
    if (parsed->store_key) {
      const bool existed = StoreDeletesKey(ctx, true, *parsed->store_key);
      if (ReplyIfError(ctx, zsets.Replace(*parsed->store_key, {}))) return;
      NotifyStored(ctx, kNotifyZset, "", *parsed->store_key, false, existed);
      ctx.reply.Int(0);
    } else {
      ctx.reply.Array(0);
    }
    return;
  }
  // COUNT needs the nearest ones: ascending unless ANY or an order was asked for.
  if (parsed->count != 0 && parsed->sort == SortOrder::kNone && !parsed->any) {
    parsed->sort = SortOrder::kAsc;
  }
  StatusOr<std::vector<Found>> found = FindMembers(
      zsets, key, *source, parsed->shape, parsed->any ? static_cast<uint64_t>(parsed->count) : 0);
  if (ReplyIfError(ctx, found.status())) return;
  const size_t returned = parsed->count == 0
                              ? found->size()
                              : std::min(found->size(), static_cast<size_t>(parsed->count));
  if (parsed->sort != SortOrder::kNone) SortFound(*found, returned, parsed->sort);
  if (!parsed->store_key) {
    ReplyFound(ctx, *parsed, *found, returned);
    return;
  }
  const bool existed = StoreDeletesKey(ctx, returned == 0, *parsed->store_key);
  if (ReplyIfError(ctx, StoreFound(zsets, *parsed, *found, returned))) return;
  NotifyStored(ctx, kNotifyZset, kCommand.search ? "geosearchstore" : "georadiusstore",
               *parsed->store_key, returned > 0, existed);
  ctx.reply.Int(static_cast<int64_t>(returned));
}

// GEORADIUS's and GEORADIUSBYMEMBER's destination follows STORE or STOREDIST, found as Redis's
// key specs find it: from the first option on.
constexpr KeywordKey kRadiusStoreKeys[] = {{"STORE", 6}, {"STOREDIST", 6}};
constexpr KeywordKey kByMemberStoreKeys[] = {{"STORE", 5}, {"STOREDIST", 5}};

}  // namespace

void RegisterGeoCommands(CommandTable& table) {
  using F = CommandFlags;
  constexpr F kWrite = F::kWrite;
  constexpr F kRead = F::kReadOnly;
  constexpr F kStoring = F::kWrite | F::kMovableKeys;
  table.Register({"geoadd", -5, kWrite, 1, 1, 1, GeoAddCommand, "geo"});
  table.Register({"geodist", -4, kRead, 1, 1, 1, GeoDistCommand, "geo"});
  table.Register({"geohash", -2, kRead, 1, 1, 1, GeoHashCommand, "geo"});
  table.Register({"geopos", -2, kRead, 1, 1, 1, GeoPosCommand, "geo"});
  table.Register(WithKeywordKeys(
      {"georadius", -6, kStoring, 1, 1, 1, GeoSearchCommand<kGeoRadius>, "geo"}, kRadiusStoreKeys));
  table.Register({"georadius_ro", -6, kRead, 1, 1, 1, GeoSearchCommand<kGeoRadiusRo>, "geo"});
  table.Register(WithKeywordKeys(
      {"georadiusbymember", -5, kStoring, 1, 1, 1, GeoSearchCommand<kGeoRadiusByMember>, "geo"},
      kByMemberStoreKeys));
  table.Register(
      {"georadiusbymember_ro", -5, kRead, 1, 1, 1, GeoSearchCommand<kGeoRadiusByMemberRo>, "geo"});
  table.Register({"geosearch", -7, kRead, 1, 1, 1, GeoSearchCommand<kGeoSearch>, "geo"});
  table.Register({"geosearchstore", -8, kWrite, 1, 2, 1, GeoSearchCommand<kGeoSearchStore>, "geo"});
}

}  // namespace sluice::server
