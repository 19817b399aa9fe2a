#include "storage/composite.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "storage/key_encoding.h"
#include "storage/long_string.h"

namespace sluice::storage {

namespace {

// Sub-entries copied per iterator pass by CopyComposite: bounds its memory for huge keys.
constexpr size_t kCopyChunk = 1024;

// Copies every entry of `family` under `src_prefix` to `dst_prefix` + the same suffix.
Status CopyFamily(Engine& engine, SubFamily family, const std::string& src_prefix,
                  const std::string& dst_prefix) {
  std::string resume;  // last key copied; "" before the first chunk
  while (true) {
    std::vector<std::pair<std::string, std::string>> chunk;
    {
      std::unique_ptr<SubEntryIterator> it = engine.NewSubEntryIterator(family, src_prefix);
      if (resume.empty()) {
        it->SeekToFirst();
      } else {
        it->Seek(resume);
        if (it->Valid() && it->key() == resume) it->Next();
      }
      for (; it->Valid() && chunk.size() < kCopyChunk; it->Next()) {
        chunk.emplace_back(std::string(it->key()), std::string(it->value()));
      }
      SLUICE_RETURN_IF_ERROR(it->status());
    }
    // Written after the iterator is gone (engine.h: collect, then write).
    for (const auto& [key, value] : chunk) {
      std::string target = dst_prefix;
      target.append(std::string_view(key).substr(src_prefix.size()));
      engine.PutSubEntry(family, target, value);
    }
    if (chunk.size() < kCopyChunk) return Status::Ok();
    resume = std::move(chunk.back().first);
  }
}

}  // namespace

Status WrongTypeStatus() { return {Code::kWrongType, std::string()}; }

StatusOr<std::optional<Record>> LoadTyped(Engine& engine, std::string_view key, KeyType type,
                                          int64_t now_ms) {
  StatusOr<std::optional<Record>> found = engine.Get(key, now_ms);
  if (!found.ok()) return found.status();
  if (found->has_value() && (*found)->meta.type != type) return WrongTypeStatus();
  return found;
}

StatusOr<uint64_t> LoadSize(Engine& engine, std::string_view key, KeyType type, int64_t now_ms) {
  StatusOr<std::optional<Metadata>> meta = engine.GetMetadata(key, now_ms);
  if (!meta.ok()) return meta.status();
  if (!meta->has_value()) return uint64_t{0};
  if ((*meta)->type != type) return WrongTypeStatus();
  return (*meta)->size;
}

Record NewComposite(Engine& engine, KeyType type) {
  Record record;
  record.meta.type = type;
  record.meta.version = engine.NextVersion();
  record.meta.size = 0;
  return record;
}

Status DeleteIfPresent(Engine& engine, std::string_view key, int64_t now_ms) {
  StatusOr<std::optional<Metadata>> meta = engine.GetMetadata(key, now_ms);
  if (!meta.ok()) return meta.status();
  if (meta->has_value()) engine.Delete(key);
  return Status::Ok();
}

void StoreOrDelete(Engine& engine, std::string_view key, const Record& record) {
  if (record.meta.size == 0) {
    engine.Delete(key);
  } else {
    engine.Put(key, record);
  }
}

StatusOr<Record> CopyComposite(Engine& engine, std::string_view from, const Record& src,
                               std::string_view to) {
  Record dst = src;
  if (!IsCompositeType(src.meta.type)) return dst;
  dst.meta.version = engine.NextVersion();
  const std::string src_prefix = SubKeyPrefix(from, src.meta.version);
  const std::string dst_prefix = SubKeyPrefix(to, dst.meta.version);
  SLUICE_RETURN_IF_ERROR(CopyFamily(engine, SubFamily::kSubkeys, src_prefix, dst_prefix));
  if (src.meta.type == KeyType::kZSet) {
    SLUICE_RETURN_IF_ERROR(CopyFamily(engine, SubFamily::kZScore, src_prefix, dst_prefix));
  }
  return dst;
}

bool CountTombstones(Engine& engine, std::string_view key, const Record& record, uint64_t deleted) {
  if (deleted == 0 || record.meta.size == 0) return false;
  const uint64_t total =
      engine.tombstone_counts().Add(SubKeyPrefix(key, record.meta.version), deleted);
  return total >= kTombstoneFloor && total / kTombstonesPerElement >= record.meta.size;
}

Status CopyWithoutTombstones(Engine& engine, std::string_view key, Record& record) {
  StatusOr<Record> copy = CopyComposite(engine, key, record, key);
  if (!copy.ok()) return copy.status();
  engine.tombstone_counts().Forget(SubKeyPrefix(key, record.meta.version));
  record = std::move(copy).value();
  return Status::Ok();
}

Status ShedTombstones(Engine& engine, std::string_view key, Record& record, uint64_t deleted) {
  if (!CountTombstones(engine, key, record, deleted)) return Status::Ok();
  return CopyWithoutTombstones(engine, key, record);
}

StatusOr<uint64_t> StoredBytes(Engine& engine, std::string_view key, const Record& record,
                               uint64_t samples) {
  const uint64_t own = key.size() + EncodeRecord(record).size();
  // A long string's bytes are sub-entries: chunks (counted as if none were left out), or one.
  if (record.meta.payload_outside) {
    const uint64_t entries =
        record.meta.chunked ? (record.meta.size + kStringChunkBytes - 1) / kStringChunkBytes : 1;
    // A chunk's key is the one-entry key and the chunk's index (8 bytes).
    const uint64_t key_bytes =
        EncodeSubKey(key, record.meta.version, "").size() + (record.meta.chunked ? 8 : 0);
    return own + entries * key_bytes + record.meta.size;
  }
  if (!IsCompositeType(record.meta.type)) return own;
  const std::string prefix = SubKeyPrefix(key, record.meta.version);
  // A score-index key is its member's sub-key plus the 8 score bytes; its value is empty.
  const bool indexed_zset = record.meta.type == KeyType::kZSet;
  uint64_t read = 0;
  uint64_t read_bytes = 0;
  std::unique_ptr<SubEntryIterator> it = engine.NewSubEntryIterator(SubFamily::kSubkeys, prefix);
  for (it->SeekToFirst(); it->Valid() && (samples == 0 || read < samples); it->Next()) {
    read_bytes += it->key().size() + it->value().size();
    if (indexed_zset) read_bytes += it->key().size() + sizeof(uint64_t);
    ++read;
  }
  SLUICE_RETURN_IF_ERROR(it->status());
  // An inline sorted set or list has no sub-entries: its elements are in the record.
  if (read == 0) return own;
  return own + read_bytes * std::max(record.meta.size, read) / read;
}

std::optional<IndexRange> ClampIndexRange(int64_t start, int64_t stop, uint64_t length) {
  // Lengths are far below INT64_MAX (bounded by memory and disk), so they fit.
  const auto len = static_cast<int64_t>(length);
  if (start < 0) start += len;  // no overflow: start < 0 <= len
  if (stop < 0) stop += len;
  if (start < 0) start = 0;
  // start >= 0 now, so this also covers stop < 0.
  if (start > stop || start >= len) return std::nullopt;
  if (stop >= len) stop = len - 1;
  return IndexRange{static_cast<uint64_t>(start), static_cast<uint64_t>(stop)};
}

}  // namespace sluice::storage
