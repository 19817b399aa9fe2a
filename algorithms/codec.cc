#include "algorithms/codec.h"

#include <array>
#include <bit>

#include "algorithms/messages.h"
#include "common/ascii.h"

namespace sluice::algorithms {

namespace {

constexpr std::array<std::pair<AlgorithmTag, std::string_view>, 7> kNames = {{
    {AlgorithmTag::kFixedWindow, "FIXEDWINDOW"},
    {AlgorithmTag::kSlidingLog, "SLIDINGLOG"},
    {AlgorithmTag::kSlidingWindow, "SLIDINGWINDOW"},
    {AlgorithmTag::kTokenBucket, "TOKENBUCKET"},
    {AlgorithmTag::kLeakyBucket, "LEAKYBUCKET"},
    {AlgorithmTag::kGcra, "GCRA"},
    {AlgorithmTag::kSmooth, "SMOOTH"},
}};

}  // namespace

std::string_view AlgorithmName(AlgorithmTag tag) {
  if (tag == AlgorithmTag::kPolicySet) return "POLICYSET";
  for (const auto& [t, name] : kNames) {
    if (t == tag) return name;
  }
  return "UNKNOWN";
}

std::optional<AlgorithmTag> ParseAlgorithmName(std::string_view name) {
  for (const auto& [t, n] : kNames) {
    if (EqualsIgnoreCase(n, name)) return t;
  }
  return std::nullopt;
}

std::optional<AlgorithmTag> PeekAlgorithm(std::string_view encoded) {
  if (encoded.size() < 2) return std::nullopt;
  auto tag = static_cast<uint8_t>(encoded[0]);
  if (tag < static_cast<uint8_t>(AlgorithmTag::kFixedWindow) ||
      tag > static_cast<uint8_t>(AlgorithmTag::kPolicySet)) {
    return std::nullopt;
  }
  return static_cast<AlgorithmTag>(tag);
}

StateWriter::StateWriter(AlgorithmTag tag, uint8_t version) {
  out_.push_back(static_cast<char>(tag));
  out_.push_back(static_cast<char>(version));
}

// Each value is built on the stack and appended once: a state is encoded on every decision,
// and a push_back per byte was most of the cost.
void StateWriter::Unsigned(uint64_t v) {
  char buf[10];  // 64 bits, 7 per byte
  size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out_.append(buf, n);
}

void StateWriter::Signed(int64_t v) {
  auto u = static_cast<uint64_t>(v);
  Unsigned((u << 1) ^ (v < 0 ? ~uint64_t{0} : uint64_t{0}));
}

void StateWriter::Double(double v) {
  auto bits = std::bit_cast<uint64_t>(v);
  char buf[8];
  for (int i = 0; i < 8; ++i) {
    buf[i] = static_cast<char>((bits >> (8 * i)) & 0xff);
  }
  out_.append(buf, sizeof(buf));
}

void StateWriter::Bytes(std::string_view v) {
  Unsigned(v.size());
  out_.append(v);
}

Status StateReader::Header(AlgorithmTag tag, uint8_t newest_version) {
  std::optional<AlgorithmTag> actual = PeekAlgorithm(in_);
  if (!actual) return CorruptStateError();
  if (*actual != tag) return WrongTypeError();
  const auto version = static_cast<uint8_t>(in_[1]);
  if (version < kFormatVersion || version > newest_version) return CorruptStateError();
  version_ = version;
  pos_ = 2;
  return Status::Ok();
}

bool StateReader::Unsigned(uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= in_.size()) return false;
    auto byte = static_cast<uint8_t>(in_[pos_++]);
    uint64_t bits = byte & 0x7f;
    if (shift == 63 && bits > 1) return false;  // more than 64 bits
    result |= bits << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

bool StateReader::Signed(int64_t* v) {
  uint64_t u = 0;
  if (!Unsigned(&u)) return false;
  *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

bool StateReader::Double(double* v) {
  if (in_.size() - pos_ < 8) return false;
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) {
    bits |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
  }
  pos_ += 8;
  *v = std::bit_cast<double>(bits);
  return true;
}

bool StateReader::Bytes(std::string_view* v) {
  uint64_t n = 0;
  if (!Unsigned(&n) || n > in_.size() - pos_) return false;
  *v = in_.substr(pos_, n);
  pos_ += n;
  return true;
}

}  // namespace sluice::algorithms
