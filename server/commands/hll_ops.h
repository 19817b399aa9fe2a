#pragma once

// The HyperLogLog of PFADD, PFCOUNT and PFMERGE over a string's bytes, in Redis 7.0's format
// (hyperloglog.c), so the strings are interchangeable with Redis's; no I/O.
//
// Layout: a 16-byte header ("HYLL", the encoding byte, 3 unused bytes, the cached cardinality
// as 8 little-endian bytes whose top bit set means "stale"), then the registers. 16384
// registers (P = 14) hold the longest run of zero bits + 1 seen in the hash's other 50 bits.
//   dense:  6 bits per register, least significant bits first, 12288 bytes.
//   sparse: run-length opcodes: ZERO 00xxxxxx (1..64 zero registers), XZERO 01xxxxxx yyyyyyyy
//           (1..16384 zero registers), VAL 1vvvvvxx (1..4 registers of value 1..32). A sparse
//           string is promoted to dense when an add would need a value above 32 or grow it
//           past hll-sparse-max-bytes.
// The hash is MurmurHash64A with Redis's seed; the estimate is Ertl's improved estimator
// ("New cardinality estimation algorithms for HyperLogLog sketches", arXiv:1702.01284).
// Corrupt sparse strings are detected where Redis detects them, and only there.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::server::hll {

inline constexpr int kPrecision = 14;
inline constexpr int kRegisters = 1 << kPrecision;
inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kDenseSize = kHeaderSize + (kRegisters * 6 + 7) / 8;
inline constexpr uint64_t kHashSeed = 0xadc83b19;

enum class Encoding : uint8_t { kDense = 0, kSparse = 1 };

// Every register's value, one byte each: PFMERGE's and multi-key PFCOUNT's union.
using RawRegisters = std::array<uint8_t, kRegisters>;

// MurmurHash64A (Austin Appleby), reading the input as little-endian 64-bit words.
uint64_t MurmurHash64A(std::string_view data, uint64_t seed);

// The register an element lands in and the value it offers it (1..51).
struct RegisterUpdate {
  int index = 0;
  uint8_t value = 0;
};
RegisterUpdate HashElement(std::string_view element);

// A new, empty HLL as PFADD creates it: sparse, one XZERO covering every register.
std::string NewHll();

// Redis's isHLLObject: the magic, a known encoding and, for dense, the exact length. A string
// failing it is "not a valid HyperLogLog string value"; one passing it may still be corrupt.
bool HasValidHeader(std::string_view s);
// The encoding of a string that has a valid header.
Encoding EncodingOf(std::string_view s);

// The cached cardinality, if it is not marked stale.
std::optional<uint64_t> CachedCardinality(std::string_view s);
void StoreCardinality(std::string& s, uint64_t cardinality);
void InvalidateCache(std::string& s);

enum class SetResult { kUnchanged, kUpdated, kCorrupt };

// Raises register `index` to `value` if it is lower (Redis's hllSparseSet / hllDenseSet),
// promoting a sparse string to dense when needed. Does not touch the cache of a dense string;
// a sparse update marks it stale (as Redis's).
SetResult SetRegister(std::string& s, int index, uint8_t value, uint64_t sparse_max_bytes);
// PFADD of one element; an update leaves the cache as SetRegister does.
SetResult Add(std::string& s, std::string_view element, uint64_t sparse_max_bytes);

// Converts a sparse string to dense in place, keeping the header but the encoding. False if
// the sparse opcodes do not cover exactly the registers (the string is then unchanged).
bool ToDense(std::string& s);

// Raises each of `max`'s registers to the string's (Redis's hllMerge). False if a sparse
// string does not cover exactly the registers.
bool MergeInto(RawRegisters& max, std::string_view s);

// The estimate from the registers of a string (nullopt: a corrupt sparse one) or of a raw
// register array. Redis's reply: an estimate too large for an int64 wraps as Redis's does.
std::optional<uint64_t> Estimate(std::string_view s);
uint64_t Estimate(const RawRegisters& registers);

// Register `index` of a dense string's register bytes (those after the header).
uint8_t DenseRegister(std::string_view registers, int index);

// PFDEBUG DECODE: the sparse opcodes as "z:len", "Z:len", "v:value,len", space separated.
std::string DescribeSparse(std::string_view s);

}  // namespace sluice::server::hll
