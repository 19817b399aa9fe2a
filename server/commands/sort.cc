// SORT and SORT_RO, with Redis 7.0's arguments, replies and errors (sort.c); the option parsing,
// pattern substitution, weights and comparison are server/commands/sort_ops.h's.
//
// Redis's order: the options (a syntax or LIMIT error first), then the key's type (a list, set
// or sorted set, or missing: an empty list), then the weights of every element (BY lookups),
// the sort, and the error for a weight that is not a number, then the GET lookups of the
// elements LIMIT selects. A BY pattern without '*' sorts nothing: a list or sorted set comes in
// its own order (reversed by DESC), a set in the order Redis walks it; a set's order is then
// sorted ALPHA after all for STORE and inside scripts, as Redis does to keep them deterministic.
// Every lookup of a key (the source, each BY and GET) counts in keyspace hits and misses.

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/acl/user.h"
#include "server/commands/commands.h"
#include "server/commands/helpers.h"
#include "server/commands/set_reply.h"
#include "server/commands/sort_ops.h"
#include "server/keyspace_events.h"
#include "storage/hash_type.h"
#include "storage/list_type.h"
#include "storage/set_type.h"
#include "storage/zset_type.h"

namespace sluice::server {
namespace {

using storage::KeyType;

constexpr std::string_view kScoresNotDouble = "One or more scores can't be converted into double";

// What `pattern` finds for `element` (lookupKeyByPattern): a string's value, a hash's field,
// the element itself for "#"; nullopt for nothing (no '*', a missing key or field, another
// type). The key's one lookup counts as a read; a hash's field is read under the record found.
StatusOr<std::optional<std::string>> LookupByPattern(CommandContext& ctx, std::string_view pattern,
                                                     std::string_view element) {
  PatternTarget target = ResolvePattern(pattern, element);
  if (target.kind == PatternTarget::Kind::kElement) return std::optional<std::string>(element);
  if (target.kind == PatternTarget::Kind::kNothing) return std::optional<std::string>();
  auto found = ctx.engine().Get(target.key, ctx.now_ms);
  if (!found.ok()) return found.status();
  if (!found->has_value()) return std::optional<std::string>();
  storage::Record& record = **found;
  if (!target.field) {
    if (record.meta.type != KeyType::kString) return std::optional<std::string>();
    return std::optional<std::string>(std::move(record.payload));
  }
  if (record.meta.type != KeyType::kHash) return std::optional<std::string>();
  return storage::HashType(ctx.engine(), ctx.now_ms).GetOf(target.key, record, *target.field);
}

// A sorted set's members read with their scores, which SORT does not use.
StatusOr<std::vector<std::string>> MembersOnly(
    StatusOr<std::vector<storage::ScoredMember>> scored) {
  if (!scored.ok()) return scored.status();
  std::vector<std::string> members;
  members.reserve(scored->size());
  for (storage::ScoredMember& each : *scored) members.push_back(std::move(each.member));
  return members;
}

// The elements of `key` (whose record is `record`) in the order Redis loads them: a list's,
// a sorted set's by score, a set's as Redis walks it (OrderLikeRedis). Read under the record,
// with no second lookup of the key.
StatusOr<std::vector<std::string>> ReadAll(CommandContext& ctx, std::string_view key,
                                           const storage::Record& record) {
  switch (record.meta.type) {
    case KeyType::kList:
      return storage::ListType(ctx.engine(), ctx.now_ms).ElementsOf(key, record);
    case KeyType::kSet: {
      auto members = storage::SetType(ctx.engine(), ctx.now_ms).MembersOf(key, record);
      if (members.ok()) OrderLikeRedis(*members);
      return members;
    }
    default:
      return MembersOnly(storage::ZSetType(ctx.engine(), ctx.now_ms).MembersOf(key, record));
  }
}

// A list's or sorted set's elements that `window` selects out of its own order (reversed by
// `desc`), read as a range under `record`: SORT ... BY nosort [LIMIT] pages without reading
// the rest.
StatusOr<std::vector<std::string>> ReadWindow(CommandContext& ctx, std::string_view key,
                                              const storage::Record& record, SortWindow window,
                                              bool desc) {
  if (window.count == 0) return std::vector<std::string>();
  const auto start = static_cast<int64_t>(window.start);
  const auto stop = static_cast<int64_t>(window.start + window.count - 1);
  if (record.meta.type == KeyType::kZSet) {
    return MembersOnly(
        storage::ZSetType(ctx.engine(), ctx.now_ms).RangeByRankOf(key, record, start, stop, desc));
  }
  storage::ListType lists(ctx.engine(), ctx.now_ms);
  if (!desc) return lists.RangeOf(key, record, start, stop);
  // From the tail: indexes -1-start down to -1-stop.
  auto elements = lists.RangeOf(key, record, -1 - stop, -1 - start);
  if (elements.ok()) std::reverse(elements->begin(), elements->end());
  return elements;
}

// The weights of `elements` and their order: by the element itself or by what BY finds.
// Returns false, with the items sorted anyway, when a numeric weight is not a number.
StatusOr<bool> SortElements(CommandContext& ctx, const SortArgs& args, bool alpha, bool use_by,
                            std::vector<std::string>& elements) {
  std::vector<SortItem> items(elements.size());
  bool all_numbers = true;
  for (size_t i = 0; i < elements.size(); ++i) {
    SortItem& item = items[i];
    item.element = std::move(elements[i]);
    std::optional<std::string> by_value;
    if (use_by) {
      auto found = LookupByPattern(ctx, *args.by, item.element);
      if (!found.ok()) return found.status();
      by_value = std::move(*found);
    }
    if (alpha) {
      item.by_value = std::move(by_value);
    } else if (!use_by || by_value) {  // a BY that finds nothing weighs 0
      if (!ParseSortScore(use_by ? *by_value : item.element, &item.score)) all_numbers = false;
    }
  }
  SortItems(items, alpha ? SortMode::kAlpha : SortMode::kNumeric, use_by,
            /*binary=*/args.store.has_value(), args.desc);
  for (size_t i = 0; i < items.size(); ++i) elements[i] = std::move(items[i].element);
  return all_numbers;
}

void ExecSort(CommandContext& ctx, const SortArgs& args) {
  // What the command answers or stores, in order: the elements LIMIT selects, or what each
  // GET finds for each of them (nullopt: nil, or "" in a stored list).
  std::vector<std::optional<std::string>> values;
  {
    LookupCounting counting(ctx, true);  // SORT's lookups are reads, its STORE's too
    std::optional<storage::Record> record;
    if (!LookupAnyWithoutLongPayload(ctx, args.key, &record)) return;
    const KeyType type = record ? record->meta.type : KeyType::kList;
    if (type != KeyType::kList && type != KeyType::kSet && type != KeyType::kZSet) {
      ReplyError(ctx, WrongTypeError());
      return;
    }
    const size_t length = record ? record->meta.size : 0;
    bool dont_sort = args.dont_sort;
    bool alpha = args.alpha;
    const bool in_script = ctx.server.script.active && &ctx.client == ctx.server.script.client;
    if (dont_sort && type == KeyType::kSet && (args.store || in_script)) {
      dont_sort = false;  // sorted ALPHA by the members themselves
      alpha = true;
    }
    const bool use_by = args.by.has_value() && !args.dont_sort;
    const SortWindow window = LimitWindow(args.limit_offset, args.limit_count, length);
    std::vector<std::string> selected;  // the elements LIMIT selects, in order
    if (!record) {
      // Nothing to read: an empty list.
    } else if (dont_sort && type != KeyType::kSet) {
      auto elements = ReadWindow(ctx, args.key, *record, window, args.desc);
      if (ReplyIfError(ctx, elements.status())) return;
      selected = std::move(*elements);
    } else {
      auto elements = ReadAll(ctx, args.key, *record);
      if (ReplyIfError(ctx, elements.status())) return;
      if (!dont_sort) {
        auto numbers = SortElements(ctx, args, alpha, use_by, *elements);
        if (ReplyIfError(ctx, numbers.status())) return;
        if (!*numbers) {
          ReplyError(ctx, Err(std::string(kScoresNotDouble)));
          return;
        }
      }
      const auto first = elements->begin() + static_cast<std::ptrdiff_t>(window.start);
      selected.assign(std::make_move_iterator(first),
                      std::make_move_iterator(first + static_cast<std::ptrdiff_t>(window.count)));
    }
    values.reserve(args.gets.empty() ? selected.size() : args.gets.size() * selected.size());
    for (std::string& element : selected) {
      if (args.gets.empty()) {
        values.emplace_back(std::move(element));
        continue;
      }
      for (std::string_view pattern : args.gets) {
        auto value = LookupByPattern(ctx, pattern, element);
        if (ReplyIfError(ctx, value.status())) return;
        values.push_back(std::move(*value));
      }
    }
  }
  if (!args.store) {
    ctx.reply.Array(static_cast<int64_t>(values.size()));
    for (const std::optional<std::string>& value : values) ReplyBulkOrNull(ctx, value);
    return;
  }
  std::vector<std::string> list;
  list.reserve(values.size());
  for (std::optional<std::string>& value : values) list.push_back(std::move(value).value_or(""));
  const bool existed = StoreDeletesKey(ctx, list.empty(), *args.store);
  if (ReplyIfError(ctx, storage::ListType(ctx.engine(), ctx.now_ms).Replace(*args.store, list))) {
    return;
  }
  NotifyStored(ctx, kNotifyList, "sortstore", *args.store, !list.empty(), existed);
  ctx.reply.Int(static_cast<int64_t>(list.size()));
}

template <bool kReadOnly>
void SortCommand(CommandContext& ctx, Args args) {
  auto parsed = ParseSort(args, kReadOnly, AllKeysReadable(*ctx.client.user));
  if (ReplyIfError(ctx, parsed.status())) return;
  ExecSort(ctx, *parsed);
}

std::vector<std::string_view> NoKeys(Args) { return {}; }

constexpr std::string_view kSortCategories[] = {"@write", "@set",  "@sortedset",
                                                "@list",  "@slow", "@dangerous"};
constexpr std::string_view kSortRoCategories[] = {"@read", "@set",  "@sortedset",
                                                  "@list", "@slow", "@dangerous"};
constexpr KeyFinder::UnknownKeySpec kSortUnknownKeys[] = {
    {false,
     "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from "
     "the content of the key we sort"},
    {true,
     "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear "
     "anywhere in the argument array"},
};
constexpr KeyFinder kSortKeys{SortStoreKeys, kSortUnknownKeys};
constexpr KeyFinder kSortRoKeys{NoKeys, std::span(kSortUnknownKeys, 1)};

}  // namespace

void RegisterSortCommands(CommandTable& table) {
  using F = CommandFlags;
  // The sorted key is the table's one key; SORT's STORE destination is found by SortStoreKeys
  // (Redis's sortGetKeys), for COMMAND GETKEYS and WATCH.
  CommandSpec sort{"sort", -2, F::kWrite | F::kMovableKeys, 1, 1, 1, SortCommand<false>, "generic"};
  sort.key_finder = &kSortKeys;
  sort.acl_categories = kSortCategories;
  table.Register(sort);
  CommandSpec sort_ro{"sort_ro",         -2,       F::kReadOnly | F::kMovableKeys, 1, 1, 1,
                      SortCommand<true>, "generic"};
  sort_ro.key_finder = &kSortRoKeys;
  sort_ro.acl_categories = kSortRoCategories;
  table.Register(sort_ro);
}

}  // namespace sluice::server
