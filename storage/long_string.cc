#include "storage/long_string.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "storage/key_encoding.h"

namespace sluice::storage {

namespace {

// A range of at most this many chunks is read with point reads, a longer one with an iterator
// (whose setup costs about what a few point reads do).
constexpr uint64_t kMostPointReadChunks = 4;

bool AllZero(std::string_view bytes) {
  // Each byte equals the next and the first is zero: memcmp's vector loop, not a byte loop.
  return bytes.empty() ||
         (bytes[0] == '\0' && std::memcmp(bytes.data(), bytes.data() + 1, bytes.size() - 1) == 0);
}

// What `chunk` (chunk `index`'s stored bytes) holds of [offset, end): its first byte's offset
// in the string, and the bytes (empty: nothing).
std::pair<uint64_t, std::string_view> ChunkPart(uint64_t index, std::string_view chunk,
                                                uint64_t offset, uint64_t end) {
  const uint64_t chunk_start = index * kStringChunkBytes;
  const uint64_t from = std::max(offset, chunk_start);
  const uint64_t to = std::min(end, chunk_start + chunk.size());
  if (from >= to) return {from, {}};
  return {from, chunk.substr(from - chunk_start, to - from)};
}

// Chunk `index`'s stored bytes into *out (empty if it is missing).
Status ReadChunk(Engine& engine, std::string_view key, uint64_t version, uint64_t index,
                 std::string* out) {
  StatusOr<std::optional<std::string>> chunk =
      engine.GetSubEntry(SubFamily::kSubkeys, StringChunkKey(key, version, index));
  if (!chunk.ok()) return chunk.status();
  if (chunk->has_value()) *out = std::move(**chunk);
  return Status::Ok();
}

// The legacy layout's bytes: one sub-entry under field "".
StatusOr<std::string> ReadOneEntryBytes(Engine& engine, std::string_view key,
                                        const Metadata& meta) {
  StatusOr<std::optional<std::string>> bytes =
      engine.GetSubEntry(SubFamily::kSubkeys, EncodeSubKey(key, meta.version, ""));
  if (!bytes.ok()) return bytes.status();
  if (!bytes->has_value() || (*bytes)->size() != meta.size) {
    return IoError("corrupt record: the bytes of a long string are missing or cut short");
  }
  return std::move(**bytes);
}

}  // namespace

std::string StringChunkKey(std::string_view key, uint64_t version, uint64_t index) {
  std::string field;
  PutFixed64BE(&field, index);
  return EncodeSubKey(key, version, field);
}

Status WriteStringChunks(Engine& engine, std::string_view key, uint64_t version, uint64_t offset,
                         std::string_view bytes, bool fresh) {
  if (bytes.empty()) return Status::Ok();
  const uint64_t end = offset + bytes.size();
  const uint64_t first = offset / kStringChunkBytes;
  const uint64_t last = (end - 1) / kStringChunkBytes;
  const auto covered_whole = [&](uint64_t index) {
    return offset <= index * kStringChunkBytes && (index + 1) * kStringChunkBytes <= end;
  };
  // A chunk the bytes cover in part keeps its other bytes. Only the first and the last can be
  // such, and both are read before anything is staged, so that a failed read stages nothing.
  std::string head;
  std::string tail;
  if (!fresh) {
    if (!covered_whole(first)) {
      SLUICE_RETURN_IF_ERROR(ReadChunk(engine, key, version, first, &head));
    }
    if (last != first && !covered_whole(last)) {
      SLUICE_RETURN_IF_ERROR(ReadChunk(engine, key, version, last, &tail));
    }
  }
  for (uint64_t index = first; index <= last; ++index) {
    const uint64_t chunk_start = index * kStringChunkBytes;
    const uint64_t from = std::max(offset, chunk_start);
    const uint64_t to = std::min(end, chunk_start + kStringChunkBytes);
    const std::string_view part = bytes.substr(from - offset, to - from);
    std::string_view chunk = part;  // all the chunk holds, when it holds nothing else
    if (from != chunk_start || !(fresh || covered_whole(index))) {
      std::string& kept = index == first ? head : tail;
      if (kept.size() < to - chunk_start) kept.resize(to - chunk_start, '\0');
      kept.replace(from - chunk_start, part.size(), part);
      chunk = kept;
    }
    if (fresh && AllZero(chunk)) continue;  // reads as zeros without it
    engine.PutSubEntry(SubFamily::kSubkeys, StringChunkKey(key, version, index), chunk);
  }
  return Status::Ok();
}

Status VisitStringChunks(Engine& engine, std::string_view key, uint64_t version, uint64_t offset,
                         uint64_t length, const PieceVisitor& visit) {
  if (length == 0) return Status::Ok();
  const uint64_t end = offset + length;
  const uint64_t first = offset / kStringChunkBytes;
  const uint64_t last = (end - 1) / kStringChunkBytes;
  const auto visit_part = [&](uint64_t index, std::string_view chunk) {
    auto [at, bytes] = ChunkPart(index, chunk, offset, end);
    return bytes.empty() || visit(at, bytes);
  };
  if (last - first < kMostPointReadChunks) {
    std::string chunk;
    for (uint64_t index = first; index <= last; ++index) {
      chunk.clear();
      SLUICE_RETURN_IF_ERROR(ReadChunk(engine, key, version, index, &chunk));
      if (!visit_part(index, chunk)) break;
    }
    return Status::Ok();
  }
  const std::string prefix = SubKeyPrefix(key, version);
  std::unique_ptr<SubEntryIterator> it =
      engine.NewSubEntryRangeIterator(SubFamily::kSubkeys, StringChunkKey(key, version, first),
                                      StringChunkKey(key, version, last + 1));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view chunk_key = it->key();
    if (chunk_key.size() != prefix.size() + 8) {
      return IoError("corrupt sub-key: a long string's chunk key of " +
                     std::to_string(chunk_key.size()) + " bytes");
    }
    if (!visit_part(LoadFixed64BE(chunk_key.data() + prefix.size()), it->value())) break;
  }
  return it->status();
}

Status ReadStringChunks(Engine& engine, std::string_view key, uint64_t version, uint64_t offset,
                        uint64_t length, std::string* out) {
  out->assign(length, '\0');
  return VisitStringChunks(engine, key, version, offset, length,
                           [&](uint64_t at, std::string_view bytes) {
                             std::copy(bytes.begin(), bytes.end(), out->begin() + (at - offset));
                             return true;
                           });
}

Status VisitStringRange(Engine& engine, std::string_view key, const RecordView& record,
                        uint64_t offset, uint64_t length, const PieceVisitor& visit) {
  const uint64_t size = StringLength(record);
  if (offset >= size) return Status::Ok();
  length = std::min(length, size - offset);
  if (record.meta.chunked) {
    return VisitStringChunks(engine, key, record.meta.version, offset, length, visit);
  }
  std::string buffer;
  StatusOr<std::string_view> bytes = ReadStringRange(engine, key, record, offset, length, &buffer);
  if (!bytes.ok()) return bytes.status();
  if (!bytes->empty()) visit(offset, *bytes);
  return Status::Ok();
}

StatusOr<std::string_view> ReadStringRange(Engine& engine, std::string_view key,
                                           const RecordView& record, uint64_t offset,
                                           uint64_t length, std::string* buffer) {
  const uint64_t size = StringLength(record);
  if (offset >= size) return std::string_view();
  length = std::min(length, size - offset);
  if (!record.meta.payload_outside) return record.payload.substr(offset, length);
  if (record.meta.chunked) {
    SLUICE_RETURN_IF_ERROR(
        ReadStringChunks(engine, key, record.meta.version, offset, length, buffer));
    return std::string_view(*buffer);
  }
  StatusOr<std::string> bytes = ReadOneEntryBytes(engine, key, record.meta);
  if (!bytes.ok()) return bytes.status();
  *buffer = std::move(bytes).value();
  return std::string_view(*buffer).substr(offset, length);
}

StatusOr<uint64_t> WriteStringRange(Engine& engine, std::string_view key,
                                    const std::optional<RecordView>& existing, uint64_t offset,
                                    std::string_view bytes) {
  const uint64_t end = offset + bytes.size();
  if (existing && existing->meta.chunked) {
    Metadata meta = existing->meta;
    SLUICE_RETURN_IF_ERROR(WriteStringChunks(engine, key, meta.version, offset, bytes, false));
    // The record too when the string grew, or when nothing else was written: an empty APPEND
    // is still a write to Redis (it breaks a WATCH).
    if (end > meta.size || bytes.empty()) {
      meta.size = std::max(meta.size, end);
      engine.PutWithoutLongPayload(key, meta, {});
    }
    return meta.size;
  }
  Metadata meta;
  meta.expire_at_ms = existing ? existing->meta.expire_at_ms : 0;
  const uint64_t old_length = existing ? StringLength(*existing) : 0;
  if (std::max(old_length, end) > kLongestInlineString &&
      !(existing && existing->meta.payload_outside)) {
    // A short string, or none, becoming long: its bytes and the new ones go to the chunks of a
    // fresh version, and the zeros between them are never built (SETBIT at bit 2^32-1 of a new
    // key stores one chunk, with no 512 MB value made first).
    const std::string short_bytes(existing ? existing->payload : std::string_view());
    meta.payload_outside = meta.chunked = true;
    meta.version = engine.NextVersion();
    meta.size = std::max(old_length, end);
    SLUICE_RETURN_IF_ERROR(WriteStringChunks(engine, key, meta.version, 0, short_bytes, true));
    SLUICE_RETURN_IF_ERROR(WriteStringChunks(engine, key, meta.version, offset, bytes, false));
    engine.PutWithoutLongPayload(key, meta, {});
    return meta.size;
  }
  // A short string that stays short, or one of the one-entry layout: written whole through Put.
  std::string value;
  if (existing && existing->meta.payload_outside) {
    StatusOr<std::string> read = ReadOneEntryBytes(engine, key, existing->meta);
    if (!read.ok()) return read.status();
    value = std::move(read).value();
  } else if (existing) {
    value.assign(existing->payload);
  }
  if (value.size() < end) value.resize(end, '\0');
  value.replace(offset, bytes.size(), bytes);
  engine.Put(key, meta, value);
  return value.size();
}

}  // namespace sluice::storage
