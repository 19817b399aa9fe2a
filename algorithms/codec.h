#pragma once

// Compact binary encoding of limiter states. Every encoding starts with two bytes:
// [algorithm tag][format version], then LEB128 varints (zigzag for signed values) and, for the
// Guava limiter, one little-endian IEEE double. A state of one algorithm never decodes as
// another's: Decode checks the tag and answers WRONGTYPE, so the server can refuse
// RL.TOKENBUCKET on a key holding a GCRA state (RL.GCRA and CL.THROTTLE share one tag).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::algorithms {

enum class AlgorithmTag : uint8_t {
  kFixedWindow = 1,
  kSlidingLog = 2,
  kSlidingWindow = 3,
  kTokenBucket = 4,
  kLeakyBucket = 5,
  kGcra = 6,  // RL.GCRA and CL.THROTTLE
  kSmooth = 7,
  // Not an algorithm: the server's container for the states of several named policies under
  // one key (RL.TAKE). Never returned by ParseAlgorithmName.
  kPolicySet = 8,
};

// "FIXEDWINDOW", "SLIDINGLOG", ... (the ALGORITHM names of RL.POLICY SET; "GCRA", "SMOOTH").
std::string_view AlgorithmName(AlgorithmTag tag);
// Case-insensitive inverse of AlgorithmName (the seven algorithms only).
std::optional<AlgorithmTag> ParseAlgorithmName(std::string_view name);
// The algorithm an encoded state belongs to; nullopt if the bytes are not a limiter state.
std::optional<AlgorithmTag> PeekAlgorithm(std::string_view encoded);

// The version every algorithm's first encoding has. An algorithm that changes its layout
// writes a higher version of its own and still decodes the older ones.
inline constexpr uint8_t kFormatVersion = 1;

class StateWriter {
 public:
  explicit StateWriter(AlgorithmTag tag, uint8_t version = kFormatVersion);
  void Unsigned(uint64_t v);
  void Signed(int64_t v);          // zigzag
  void Double(double v);           // 8 bytes, little endian
  void Bytes(std::string_view v);  // varint length, then the bytes
  // Values already encoded, copied as they are.
  void Raw(std::string_view encoded) { out_.append(encoded); }
  // One allocation when the encoding's size is known.
  void Reserve(size_t bytes) { out_.reserve(bytes); }
  std::string Finish() && { return std::move(out_); }

 private:
  std::string out_;
};

class StateReader {
 public:
  explicit StateReader(std::string_view in) : in_(in) {}
  // Checks the header: WRONGTYPE for another algorithm's state, an error for garbage or a
  // version above `newest_version`.
  Status Header(AlgorithmTag tag, uint8_t newest_version = kFormatVersion);
  uint8_t version() const { return version_; }  // after a successful Header
  bool Unsigned(uint64_t* v);
  bool Signed(int64_t* v);
  bool Double(double* v);
  bool Bytes(std::string_view* v);  // a view into the input
  bool AtEnd() const { return pos_ == in_.size(); }
  std::string_view Rest() const { return in_.substr(pos_); }  // what is not read yet

 private:
  std::string_view in_;
  size_t pos_ = 0;
  uint8_t version_ = 0;
};

}  // namespace sluice::algorithms
