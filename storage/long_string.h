#pragma once

// Long strings: a string longer than the engine keeps in its record has its bytes in chunks.
//
// Chunk i of the string at (key, version) is the "subkeys" entry StringChunkKey(key, version, i)
// and holds bytes [i * kStringChunkBytes, (i + 1) * kStringChunkBytes) of the string, or the
// first part of them. What a chunk lacks, or a missing chunk, reads as zero bytes: a string
// grows with zero bytes (SETRANGE, SETBIT past its end) and never shrinks in place, so a
// string's bytes past its stored chunks are always zeros. Hence:
// - SETRANGE, APPEND, SETBIT and BITFIELD write only the chunks they touch, and GETRANGE,
//   GETBIT, BITCOUNT and BITPOS with a range read only the chunks it covers (Redis does both in
//   place, in memory; a whole rewrite of a 1 MB bitmap per SETBIT made it 800 times slower);
// - a string written whole (SET, RESTORE, RENAME) stores no chunk of zeros: a sparse bitmap
//   costs its set chunks only.
// A long string written before chunks (meta.chunked false) has its bytes in one entry; it is
// read whole, and its first write of a range rewrites it in chunks under a new version.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "storage/engine.h"
#include "storage/record.h"

namespace sluice::storage {

// Strings longer than this keep their bytes in chunks: a record that walks of the key space
// read stays small, and so does the block that holds it. A 70 MB value inline made every
// active-expiry step read its block (hundreds of ms).
inline constexpr uint64_t kLongestInlineString = 16 * 1024;

// Small enough that a chunk rewritten for a one-byte change costs about what a small SET does
// (it goes to the WAL whole), large enough that a long GET reads few entries.
inline constexpr uint64_t kStringChunkBytes = 4096;

std::string StringChunkKey(std::string_view key, uint64_t version, uint64_t index);

// Stages `bytes` as the bytes of the string at (key, version) from `offset`, chunk by chunk.
// `fresh`: nothing is stored under `version` yet (a string written whole), so chunks are
// written without reading them first and a chunk of zeros is left out. Otherwise a chunk the
// bytes cover in part is read and overlaid.
Status WriteStringChunks(Engine& engine, std::string_view key, uint64_t version, uint64_t offset,
                         std::string_view bytes, bool fresh);

// Called with a run of a string's bytes and its first byte's offset; false stops the visit.
using PieceVisitor = std::function<bool(uint64_t offset, std::string_view bytes)>;

// Calls `visit` with the stored bytes of [offset, offset + length) of the chunked string at
// (key, version), in order, without building the range: the bytes between the pieces, and after
// the last, are zeros. The views are valid during the call only. The caller keeps the range
// within the string's size.
Status VisitStringChunks(Engine& engine, std::string_view key, uint64_t version, uint64_t offset,
                         uint64_t length, const PieceVisitor& visit);

// Bytes [offset, offset + length) of the chunked string at (key, version) into *out (its
// contents replaced); the caller keeps the range within the string's size.
Status ReadStringChunks(Engine& engine, std::string_view key, uint64_t version, uint64_t offset,
                        uint64_t length, std::string* out);

// The length of the string `record` (read with or without its long payload).
inline uint64_t StringLength(const RecordView& record) {
  return record.meta.payload_outside ? record.meta.size : record.payload.size();
}

// Bytes [offset, offset + length) of the string `record` of `key`, clipped to its length:
// a view of the inline payload, or of *buffer, where a long string's range is read.
// `record` comes from Engine::GetViewWithoutLongPayload (or GetView).
StatusOr<std::string_view> ReadStringRange(Engine& engine, std::string_view key,
                                           const RecordView& record, uint64_t offset,
                                           uint64_t length, std::string* buffer);

// VisitStringChunks for the string `record` of `key` of any layout, the range clipped to its
// length: BITCOUNT and BITPOS of a long string look at its stored chunks alone.
Status VisitStringRange(Engine& engine, std::string_view key, const RecordView& record,
                        uint64_t offset, uint64_t length, const PieceVisitor& visit);

// Writes `bytes` at `offset` of the string at `key`, which `existing` holds as read by
// Engine::GetViewWithoutLongPayload (nullopt: no key yet, and the new string has no expiry),
// growing it with zero bytes; its expiry stays. A chunked string has its touched chunks
// written (and its record if it grew); a short or missing one that becomes long gets the
// chunks of a fresh version (its bytes and the new ones, never the zeros between); a short one
// that stays short, or one written before chunks, is written whole through Engine::Put.
// Returns the new length.
StatusOr<uint64_t> WriteStringRange(Engine& engine, std::string_view key,
                                    const std::optional<RecordView>& existing, uint64_t offset,
                                    std::string_view bytes);

}  // namespace sluice::storage
