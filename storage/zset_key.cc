#include "storage/zset_key.h"

#include <algorithm>
#include <bit>
#include <cassert>

#include "storage/composite.h"
#include "storage/key_encoding.h"

namespace sluice::storage {

namespace {

// The payload's first byte: which encoding the rest is in.
constexpr char kIndexedTag = 1;  // [floor:8 LE][ceil:8 LE]
constexpr char kInlineTag = 2;   // per member, in index order: [len:1][score:8 ordered BE][member]
constexpr size_t kIndexedPayloadBytes = 1 + 2 * 8;

// The subkeys value: the score's IEEE-754 bits.
std::string ScoreValue(double score) {
  std::string out;
  PutFixed64LE(&out, std::bit_cast<uint64_t>(score));
  return out;
}

// The index key without prefix: [ordered score bits:8 BE][member].
std::string IndexSuffix(uint64_t bits, std::string_view member) {
  std::string out;
  out.reserve(kScoreBytes + member.size());
  PutFixed64BE(&out, bits);
  out.append(member);
  return out;
}

}  // namespace

StatusOr<double> DecodeScoreValue(std::string_view value) {
  if (value.size() != kScoreBytes) return CorruptZSet("score value of wrong size");
  return std::bit_cast<double>(LoadFixed64LE(value.data()));
}

Status CorruptZSet(std::string_view what) {
  return IoError("corrupt sorted set: " + std::string(what));
}

// An inline set's index, walked like the RocksDB index. Forward walks read the stored entries
// as they are; the first step backwards decodes them into an array (ZSetReader::InlineEntries).
class ZSetReader::InlineIterator final : public SubEntryIterator {
 public:
  explicit InlineIterator(ZSetReader& set) : set_(set), decoded_(set.decoded_), at_(End()) {}

  bool Valid() const override { return at_ < End(); }
  void SeekToFirst() override {
    at_ = 0;
    walked_ = 0;
    CheckPacked();
  }
  void SeekToLast() override {
    Decode();
    at_ = set_.entries_.empty() ? 0 : set_.entries_.size() - 1;
  }
  void Seek(std::string_view target) override {
    if (decoded_) {
      const std::vector<std::string_view>& entries = set_.entries_;
      at_ = static_cast<size_t>(std::lower_bound(entries.begin(), entries.end(), target) -
                                entries.begin());
      return;
    }
    for (SeekToFirst(); at_ < End() && PackedEntry(at_) < target;) Next();
  }
  void SeekForPrev(std::string_view target) override {
    Decode();
    const std::vector<std::string_view>& entries = set_.entries_;
    const auto past = std::upper_bound(entries.begin(), entries.end(), target);
    at_ =
        past == entries.begin() ? entries.size() : static_cast<size_t>(past - entries.begin()) - 1;
  }
  void Next() override {
    if (!Valid()) return;
    if (decoded_) {
      ++at_;
      return;
    }
    at_ += 1 + PackedEntry(at_).size();
    ++walked_;
    CheckPacked();
  }
  // Stepping back from the first entry leaves the iterator invalid, as RocksDB's does.
  void Prev() override {
    if (!Valid()) return;
    Decode();
    at_ = at_ == 0 ? set_.entries_.size() : at_ - 1;
  }
  std::string_view key() const override { return decoded_ ? set_.entries_[at_] : PackedEntry(at_); }
  std::string_view value() const override { return {}; }
  Status status() const override { return set_.InlineStatus(); }

 private:
  // Positions are byte offsets into the stored entries until decoded, then array indexes.
  size_t End() const { return decoded_ ? set_.entries_.size() : set_.packed_.size(); }
  std::string_view PackedEntry(size_t offset) const {
    return set_.packed_.substr(offset + 1, static_cast<uint8_t>(set_.packed_[offset]));
  }
  // A stored entry is read only once its length is checked: a malformed one ends the walk,
  // which then reports it (status()), as does a walk that ends after more or fewer entries
  // than the set's size. (Every walk of the stored entries starts at the first.)
  void CheckPacked() {
    if (decoded_) return;
    if (at_ < End()) {
      if (!set_.PackedEntryFits(at_)) {
        set_.corrupt_ = true;
        at_ = End();
      }
      return;
    }
    if (walked_ != set_.record_.meta.size) set_.corrupt_ = true;
  }
  void Decode() {
    if (decoded_) return;
    const bool valid = Valid();
    const char* position = valid ? set_.packed_.data() + at_ + 1 : nullptr;
    const std::vector<std::string_view>& entries = set_.InlineEntries();
    decoded_ = true;
    at_ = valid ? static_cast<size_t>(std::partition_point(
                                          entries.begin(), entries.end(),
                                          [&](std::string_view e) { return e.data() < position; }) -
                                      entries.begin())
                : entries.size();
  }

  ZSetReader& set_;
  bool decoded_;
  size_t at_;
  uint64_t walked_ = 0;  // stored entries stepped over since the first
};

Record ZSetKey::NewRecord(Engine& engine) {
  Record record = NewComposite(engine, KeyType::kZSet);
  record.payload.push_back(kInlineTag);
  return record;
}

Status ZSetReader::Load() {
  std::string_view payload = record_.payload;
  if (payload.empty() || payload[0] == kIndexedTag) {
    inline_ = false;
    prefix_ = SubKeyPrefix(key_, record_.meta.version);
    if (payload.empty()) {
      // Written before the bounds were kept: the whole index, until a write settles them.
      floor_ = 0;
      ceil_ = UINT64_MAX;
      floor_stale_ = ceil_stale_ = true;
      return Status::Ok();
    }
    if (payload.size() != kIndexedPayloadBytes) return CorruptZSet("index bounds truncated");
    floor_ = LoadFixed64LE(payload.data() + 1);
    ceil_ = LoadFixed64LE(payload.data() + 9);
    return Status::Ok();
  }
  if (payload[0] != kInlineTag) return CorruptZSet("unknown encoding");
  // The entries' lengths are checked as they are read (PackedEntryFits): a read that needs a
  // few entries of a long set does not walk them all first, as Redis checks a listpack's
  // entries as it walks them.
  packed_ = payload.substr(1);
  // A size no payload of this length could hold would size the reads' buffers.
  if (record_.meta.size > packed_.size() / (1 + kScoreBytes)) {
    return CorruptZSet("inline size past the payload");
  }
  return Status::Ok();
}

bool ZSetReader::PackedEntryFits(size_t offset) const {
  const auto length = static_cast<uint8_t>(packed_[offset]);
  return length >= kScoreBytes && length < packed_.size() - offset;
}

Status ZSetReader::InlineStatus() const {
  return corrupt_ ? CorruptZSet("inline members do not add up to the stored ones") : Status::Ok();
}

const std::vector<std::string_view>& ZSetReader::InlineEntries() {
  if (!decoded_) {
    entries_.reserve(record_.meta.size + 1);  // bounded by the payload (Load())
    size_t at = 0;
    for (; at < packed_.size() && PackedEntryFits(at);
         at += 1 + static_cast<uint8_t>(packed_[at])) {
      entries_.push_back(packed_.substr(at + 1, static_cast<uint8_t>(packed_[at])));
    }
    if (at != packed_.size() || entries_.size() != record_.meta.size) corrupt_ = true;
    decoded_ = true;
  }
  return entries_;
}

StatusOr<std::optional<double>> ZSetReader::Score(std::string_view member) {
  if (inline_) {
    InlineIterator it(*this);
    for (it.SeekToFirst(); it.Valid(); it.Next()) {
      if (it.key().substr(kScoreBytes) == member) {
        return std::optional<double>(DoubleFromOrderedBits(LoadFixed64BE(it.key().data())));
      }
    }
    SLUICE_RETURN_IF_ERROR(it.status());
    return std::optional<double>();
  }
  StatusOr<std::optional<std::string>> value =
      engine_.GetSubEntry(SubFamily::kSubkeys, EncodeSubKey(key_, record_.meta.version, member));
  if (!value.ok()) return value.status();
  if (!value->has_value()) return std::optional<double>();
  StatusOr<double> score = DecodeScoreValue(**value);
  if (!score.ok()) return score.status();
  return std::optional<double>(*score);
}

std::string ZSetReader::IndexKey(double score, std::string_view member) const {
  return prefix_ + IndexSuffix(OrderedDoubleBits(score), member);
}

std::string ZSetReader::IndexBound(uint64_t bits) const {
  std::string out = prefix_;
  PutFixed64BE(&out, bits);
  return out;
}

void ZSetKey::Insert(std::string_view member, double score) {
  if (score == 0) score = 0.0;
  if (inline_ &&
      (member.size() > limits_.max_member || InlineEntries().size() >= limits_.max_entries)) {
    ConvertToIndexed();
  }
  if (!inline_) {
    engine_.PutSubEntry(SubFamily::kSubkeys, EncodeSubKey(key_, record_.meta.version, member),
                        ScoreValue(score));
  }
  PutIndexEntry(member, score);
}

void ZSetKey::Erase(std::string_view member, double score) {
  if (!inline_) {
    engine_.DeleteSubEntry(SubFamily::kSubkeys, EncodeSubKey(key_, record_.meta.version, member));
  }
  DeleteIndexEntry(member, score);
}

void ZSetKey::Rescore(std::string_view member, double old_score, double new_score) {
  DeleteIndexEntry(member, old_score);
  Insert(member, new_score);
}

void ZSetKey::PutIndexEntry(std::string_view member, double score) {
  const uint64_t bits = OrderedDoubleBits(score);
  if (inline_) {
    record_changed_ = true;
    InlineEntries();
    const std::string& entry = owned_.emplace_back(IndexSuffix(bits, member));
    entries_.insert(std::lower_bound(entries_.begin(), entries_.end(), std::string_view(entry)),
                    entry);
    return;
  }
  engine_.PutSubEntry(SubFamily::kZScore, IndexKey(score, member), "");
  if (bits < floor_ || (floor_stale_ && bits == floor_)) {
    floor_ = bits;
    floor_stale_ = false;
    record_changed_ = true;
  }
  if (bits > ceil_ || (ceil_stale_ && bits == ceil_)) {
    ceil_ = bits;
    ceil_stale_ = false;
    record_changed_ = true;
  }
}

// An entry at a bound may have been the first (last) one: the bound is found again at Store().
void ZSetKey::DeleteIndexEntry(std::string_view member, double score) {
  const uint64_t bits = OrderedDoubleBits(score);
  if (inline_) {
    InlineEntries();
    const std::string target = IndexSuffix(bits, member);
    const auto at = std::lower_bound(entries_.begin(), entries_.end(), std::string_view(target));
    if (at != entries_.end() && *at == target) entries_.erase(at);
    record_changed_ = true;
    return;
  }
  engine_.DeleteSubEntry(SubFamily::kZScore, IndexKey(score, member));
  ++index_deletions_;
  if (bits == floor_) floor_stale_ = record_changed_ = true;
  if (bits == ceil_) ceil_stale_ = record_changed_ = true;
}

// Writes the inline members as sub-entries; the set stays indexed from here on.
void ZSetKey::ConvertToIndexed() {
  if (InlineEntries(); corrupt_) return;  // Store() refuses the set: write none of it
  inline_ = false;
  prefix_ = SubKeyPrefix(key_, record_.meta.version);
  for (std::string_view entry : InlineEntries()) {
    const uint64_t bits = LoadFixed64BE(entry.data());
    engine_.PutSubEntry(SubFamily::kSubkeys,
                        EncodeSubKey(key_, record_.meta.version, entry.substr(kScoreBytes)),
                        ScoreValue(DoubleFromOrderedBits(bits)));
    engine_.PutSubEntry(SubFamily::kZScore, prefix_ + std::string(entry), "");
  }
  if (!entries_.empty()) {
    floor_ = LoadFixed64BE(entries_.front().data());
    ceil_ = LoadFixed64BE(entries_.back().data());
  }
  packed_ = {};
  entries_.clear();
  owned_.clear();
  record_changed_ = true;
}

std::unique_ptr<SubEntryIterator> ZSetReader::Index() {
  if (inline_) return std::make_unique<InlineIterator>(*this);
  std::string upper = ceil_ == UINT64_MAX
                          ? PrefixSuccessor(prefix_)
                          : IndexBound(std::max(ceil_ + 1, floor_));  // empty: floor > ceil
  return engine_.NewSubEntryRangeIterator(SubFamily::kZScore, IndexBound(floor_), std::move(upper));
}

Status ZSetKey::Store() {
  // Nothing is written over a malformed set (the writes before this decoded it all).
  if (inline_) InlineEntries();
  SLUICE_RETURN_IF_ERROR(InlineStatus());
  if (record_.meta.size == 0) {
    engine_.Delete(key_);
    return Status::Ok();
  }
  std::string payload;
  if (inline_) {
    const std::vector<std::string_view>& entries = InlineEntries();
    assert(entries.size() == record_.meta.size);
    payload.push_back(kInlineTag);
    for (std::string_view entry : entries) {
      payload.push_back(static_cast<char>(entry.size()));  // <= 8 + max_member
      payload.append(entry);
    }
  } else {
    // Only the run went: the first entry left is the one before it if there is one (the
    // floor stays), else the one after it; the same for the last. (With neither, the set
    // was empty and is gone above.)
    if (run_neighbours_ && (run_neighbours_->before || run_neighbours_->after)) {
      if (floor_stale_ && !run_neighbours_->before) floor_ = *run_neighbours_->after;
      if (ceil_stale_ && !run_neighbours_->after) ceil_ = *run_neighbours_->before;
      floor_stale_ = ceil_stale_ = false;
    }
    run_neighbours_.reset();
    if (floor_stale_ || ceil_stale_) SLUICE_RETURN_IF_ERROR(SettleBounds());
    payload.push_back(kIndexedTag);
    PutFixed64LE(&payload, floor_);
    PutFixed64LE(&payload, ceil_);
  }
  // The inline entries may view the old payload: they go with it.
  packed_ = {};
  entries_.clear();
  owned_.clear();
  writable_record_.payload = std::move(payload);
  if (!inline_) {
    // Copied under a fresh version after a long churn of deletions (ShedTombstones).
    if (TombstonesDue()) {
      SLUICE_RETURN_IF_ERROR(CopyWithoutTombstones(engine_, key_, writable_record_));
      shed_due_ = false;
      prefix_ = SubKeyPrefix(key_, writable_record_.meta.version);
    }
  }
  engine_.Put(key_, writable_record_);
  return Status::Ok();
}

bool ZSetKey::TombstonesDue() {
  if (inline_) return false;
  shed_due_ |= CountTombstones(engine_, key_, writable_record_, index_deletions_);
  index_deletions_ = 0;
  return shed_due_;
}

StatusOr<uint64_t> ZSetKey::ScoreBitsOf(std::string_view index_key) const {
  if (index_key.size() < prefix_.size() + kScoreBytes) return CorruptZSet("index key truncated");
  return LoadFixed64BE(index_key.data() + prefix_.size());
}

Status ZSetKey::NoteRunToErase(std::string_view first, std::string_view last) {
  run_neighbours_.reset();
  // Inline sets keep no bounds; stale ones (a set from before they were kept) are walked.
  if (inline_ || floor_stale_ || ceil_stale_) return Status::Ok();
  RunNeighbours neighbours;
  std::unique_ptr<SubEntryIterator> it = Index();
  // The score bits of the entry the iterator is on, if it is on one.
  auto bits_here = [&](std::optional<uint64_t>* bits) -> Status {
    SLUICE_RETURN_IF_ERROR(it->status());
    if (!it->Valid()) return Status::Ok();
    StatusOr<uint64_t> read = ScoreBitsOf(it->key());
    if (!read.ok()) return read.status();
    *bits = *read;
    return Status::Ok();
  };
  it->Seek(last);
  if (it->Valid() && it->key() == last) it->Next();
  SLUICE_RETURN_IF_ERROR(bits_here(&neighbours.after));
  // Whether any entry precedes the run, found forwards: a step back from the run's first entry
  // walks every deletion the batch staged below the set's floor (the index's lower bound
  // holds back RocksDB's entries, not the batch's), which made each of a pipeline's ZPOPMINs
  // O(pipeline).
  it->SeekToFirst();
  SLUICE_RETURN_IF_ERROR(it->status());
  if (it->Valid() && it->key() < first) {
    if (!neighbours.after) {  // the new ceiling: the entry just before the run
      it->SeekForPrev(first);
      if (it->Valid() && it->key() == first) it->Prev();
    }
    SLUICE_RETURN_IF_ERROR(bits_here(&neighbours.before));
  }
  run_neighbours_ = neighbours;
  return Status::Ok();
}

void ZSetKey::NoteEndRunToErase(bool at_head, std::optional<uint64_t> neighbour) {
  run_neighbours_.reset();
  if (inline_ || floor_stale_ || ceil_stale_) return;  // as NoteRunToErase
  RunNeighbours neighbours;
  (at_head ? neighbours.after : neighbours.before) = neighbour;
  run_neighbours_ = neighbours;
}

// The bounds from the first and last entries left: one seek each, stepping over the entries
// this operation removed (the older deletions lie outside the old bounds).
Status ZSetKey::SettleBounds() {
  std::unique_ptr<SubEntryIterator> it = Index();
  auto bits_at = [&](bool first) -> StatusOr<uint64_t> {
    if (first) {
      it->SeekToFirst();
    } else {
      it->SeekToLast();
    }
    SLUICE_RETURN_IF_ERROR(it->status());
    if (!it->Valid()) return CorruptZSet("index empty under a nonzero size");
    return ScoreBitsOf(it->key());
  };
  if (floor_stale_) {
    StatusOr<uint64_t> bits = bits_at(true);
    if (!bits.ok()) return bits.status();
    floor_ = *bits;
  }
  if (ceil_stale_) {
    StatusOr<uint64_t> bits = bits_at(false);
    if (!bits.ok()) return bits.status();
    ceil_ = *bits;
  }
  floor_stale_ = ceil_stale_ = false;
  return Status::Ok();
}

}  // namespace sluice::storage
