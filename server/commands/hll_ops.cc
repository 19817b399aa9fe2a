#include "server/commands/hll_ops.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace sluice::server::hll {
namespace {

constexpr int kHashBits = 64 - kPrecision;  // Redis's Q: the bits that give the run length
constexpr size_t kEncodingByte = 4;
constexpr size_t kCardinalityByte = 8;
constexpr uint8_t kStaleBit = 0x80;  // in the cardinality's last byte

constexpr int kSparseValueMax = 32;
constexpr int kSparseValueRunMax = 4;
constexpr int kSparseZeroRunMax = 64;

// The sparse opcodes, one byte each but XZERO's two.
bool IsZero(uint8_t op) { return (op & 0xC0) == 0; }
bool IsXZero(uint8_t op) { return (op & 0xC0) == 0x40; }
bool IsVal(uint8_t op) { return (op & 0x80) != 0; }
int ZeroRun(uint8_t op) { return (op & 0x3F) + 1; }
int XZeroRun(uint8_t op, uint8_t next) { return (((op & 0x3F) << 8) | next) + 1; }
int ValValue(uint8_t op) { return ((op >> 2) & 0x1F) + 1; }
int ValRun(uint8_t op) { return (op & 0x3) + 1; }
uint8_t ZeroOp(int run) { return static_cast<uint8_t>(run - 1); }
uint8_t ValOp(int value, int run) {
  return static_cast<uint8_t>(0x80 | ((value - 1) << 2) | (run - 1));
}
void AppendXZero(std::string& out, int run) {
  out.push_back(static_cast<char>(0x40 | ((run - 1) >> 8)));
  out.push_back(static_cast<char>((run - 1) & 0xFF));
}
// A run of zero registers in the shortest opcode.
void AppendZeros(std::string& out, int run) {
  if (run > kSparseZeroRunMax) {
    AppendXZero(out, run);
  } else {
    out.push_back(static_cast<char>(ZeroOp(run)));
  }
}

uint8_t ByteAt(std::string_view s, size_t i) {
  // Past the end reads 0: Redis's strings end with a NUL it reads there (a truncated XZERO,
  // the last dense register's second byte).
  return i < s.size() ? static_cast<uint8_t>(s[i]) : 0;
}

// The run an opcode at `p` covers and its length in bytes.
struct Opcode {
  int run;
  size_t length;
};
Opcode ReadOpcode(std::string_view s, size_t p) {
  const uint8_t op = ByteAt(s, p);
  if (IsZero(op)) return {ZeroRun(op), 1};
  if (IsVal(op)) return {ValRun(op), 1};
  return {XZeroRun(op, ByteAt(s, p + 1)), 2};
}

void SetDenseRegister(std::string& s, int index, uint8_t value) {
  const size_t bit = static_cast<size_t>(index) * 6;
  const size_t byte = kHeaderSize + bit / 8;
  const int shift = static_cast<int>(bit & 7);
  auto b0 = static_cast<uint8_t>(s[byte]);
  b0 = static_cast<uint8_t>((b0 & ~(63 << shift)) | (value << shift));
  s[byte] = static_cast<char>(b0);
  if (byte + 1 < s.size()) {  // the last register fits its byte (shift 2)
    auto b1 = static_cast<uint8_t>(s[byte + 1]);
    b1 = static_cast<uint8_t>((b1 & ~(63 >> (8 - shift))) | (value >> (8 - shift)));
    s[byte + 1] = static_cast<char>(b1);
  }
}

SetResult DenseSet(std::string& s, int index, uint8_t value) {
  if (DenseRegister(std::string_view(s).substr(kHeaderSize), index) >= value) {
    return SetResult::kUnchanged;
  }
  SetDenseRegister(s, index, value);
  return SetResult::kUpdated;
}

SetResult PromoteAndSet(std::string& s, int index, uint8_t value) {
  if (!ToDense(s)) return SetResult::kCorrupt;
  return DenseSet(s, index, value);  // always an update: the sparse string needed one
}

// After an update: adjacent VAL opcodes of one value merged while their run fits, looking at
// up to five opcodes from `from`, as Redis's step 4 of hllSparseSet.
void MergeAdjacentValues(std::string& s, size_t from) {
  size_t p = from;
  for (int scans = 5; p < s.size() && scans > 0; --scans) {
    const uint8_t op = ByteAt(s, p);
    if (IsXZero(op)) {
      p += 2;
      continue;
    }
    if (IsZero(op)) {
      ++p;
      continue;
    }
    if (p + 1 < s.size() && IsVal(ByteAt(s, p + 1))) {
      const uint8_t next = ByteAt(s, p + 1);
      const int run = ValRun(op) + ValRun(next);
      if (ValValue(op) == ValValue(next) && run <= kSparseValueRunMax) {
        s[p + 1] = static_cast<char>(ValOp(ValValue(op), run));
        s.erase(p, 1);
        continue;  // the merged opcode may merge with the next one too
      }
    }
    ++p;
  }
}

SetResult SparseSet(std::string& s, int index, uint8_t value, uint64_t sparse_max_bytes) {
  if (value > kSparseValueMax) return PromoteAndSet(s, index, value);
  // Find the opcode covering `index`.
  const size_t end = s.size();
  size_t p = kHeaderSize;
  std::optional<size_t> prev;
  int first = 0;  // the first register the opcode at p covers
  Opcode opcode{0, 1};
  while (p < end) {
    opcode = ReadOpcode(s, p);
    if (index <= first + opcode.run - 1) break;
    prev = p;
    p += opcode.length;
    first += opcode.run;
  }
  if (opcode.run == 0 || p >= end) return SetResult::kCorrupt;
  const uint8_t op = ByteAt(s, p);
  const size_t from = prev.value_or(kHeaderSize);

  if (IsVal(op)) {
    if (ValValue(op) >= value) return SetResult::kUnchanged;
    if (opcode.run == 1) {  // the register alone: its value changes
      s[p] = static_cast<char>(ValOp(value, 1));
      MergeAdjacentValues(s, from);
      InvalidateCache(s);
      return SetResult::kUpdated;
    }
  }
  if (IsZero(op) && opcode.run == 1) {
    s[p] = static_cast<char>(ValOp(value, 1));
    MergeAdjacentValues(s, from);
    InvalidateCache(s);
    return SetResult::kUpdated;
  }

  // Split the opcode: what comes before the register, the register, what comes after.
  std::string seq;
  const int last = first + opcode.run - 1;
  if (IsVal(op)) {
    const int old_value = ValValue(op);
    if (index != first) seq.push_back(static_cast<char>(ValOp(old_value, index - first)));
    seq.push_back(static_cast<char>(ValOp(value, 1)));
    if (index != last) seq.push_back(static_cast<char>(ValOp(old_value, last - index)));
  } else {
    if (index != first) AppendZeros(seq, index - first);
    seq.push_back(static_cast<char>(ValOp(value, 1)));
    if (index != last) AppendZeros(seq, last - index);
  }
  const size_t old_length = IsXZero(op) ? 2 : 1;
  const auto delta = static_cast<int64_t>(seq.size()) - static_cast<int64_t>(old_length);
  if (delta > 0 && end + static_cast<uint64_t>(delta) > sparse_max_bytes) {
    return PromoteAndSet(s, index, value);
  }
  // The rest after the opcode (none when it was the last, or an XZERO cut short by the end).
  const std::string rest = p + old_length < end ? s.substr(p + old_length) : std::string();
  const auto new_size = static_cast<size_t>(static_cast<int64_t>(end) + delta);
  s.resize(p);
  s += seq;
  s += rest;
  s.resize(new_size);
  MergeAdjacentValues(s, from);
  InvalidateCache(s);
  return SetResult::kUpdated;
}

// Redis's hllSigma and hllTau of Ertl's estimator, computed in the same order.
double Sigma(double x) {
  if (x == 1.0) return std::numeric_limits<double>::infinity();
  double y = 1;
  double z = x;
  double previous = 0;
  do {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  } while (previous != z);
  return z;
}

double Tau(double x) {
  if (x == 0.0 || x == 1.0) return 0.0;
  double y = 1.0;
  double z = 1 - x;
  double previous = 0;
  do {
    x = std::sqrt(x);
    previous = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (previous != z);
  return z / 3;
}

// Indexed by register value; Redis sizes it 64 so any 6-bit register fits.
using Histogram = std::array<int, 64>;

uint64_t EstimateFromHistogram(const Histogram& histogram) {
  constexpr double kAlphaInf = 0.721347520444481703680;  // 1 / (2 ln 2)
  const double m = kRegisters;
  double z = m * Tau((m - histogram[kHashBits + 1]) / m);
  for (int j = kHashBits; j >= 1; --j) {
    z += histogram[j];
    z *= 0.5;
  }
  z += m * Sigma(histogram[0] / m);
  const double estimate = kAlphaInf * m * m / z;
  // Redis's llroundl: beyond int64 (z == 0 when every register is 51) it yields INT64_MIN.
  if (!(estimate < 9223372036854775807.0)) return uint64_t{1} << 63;
  return static_cast<uint64_t>(std::llround(estimate));
}

// Calls `on_value(index, run, value)` for each VAL run of a sparse string, in order. True if
// the runs cover exactly the registers; as Redis's sparse-to-dense and merge, the walk stops at
// a VAL run that would pass the last register.
template <typename OnValue>
bool ForEachSparseValue(std::string_view s, OnValue on_value) {
  int index = 0;
  for (size_t p = kHeaderSize; p < s.size();) {
    const uint8_t op = ByteAt(s, p);
    const Opcode opcode = ReadOpcode(s, p);
    if (IsVal(op)) {
      if (index + opcode.run > kRegisters) break;
      on_value(index, opcode.run, static_cast<uint8_t>(ValValue(op)));
    }
    index += opcode.run;
    p += opcode.length;
  }
  return index == kRegisters;
}

}  // namespace

uint64_t MurmurHash64A(std::string_view data, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const size_t len = data.size();
  // Redis passes the length as an int.
  uint64_t h = seed ^ (static_cast<uint64_t>(static_cast<int>(len)) * m);
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  const size_t blocks = len / 8;
  for (size_t i = 0; i < blocks; ++i) {
    uint64_t k = 0;
    for (int b = 7; b >= 0; --b) k = (k << 8) | bytes[i * 8 + static_cast<size_t>(b)];
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const uint8_t* tail = bytes + blocks * 8;
  const size_t rest = len & 7;
  if (rest > 0) {
    for (size_t b = rest; b-- > 0;) h ^= static_cast<uint64_t>(tail[b]) << (8 * b);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

RegisterUpdate HashElement(std::string_view element) {
  uint64_t hash = MurmurHash64A(element, kHashSeed);
  RegisterUpdate update;
  update.index = static_cast<int>(hash & (kRegisters - 1));
  hash >>= kPrecision;
  hash |= uint64_t{1} << kHashBits;  // the run ends by bit Q at the latest
  uint8_t count = 1;
  for (uint64_t bit = 1; (hash & bit) == 0; bit <<= 1) ++count;
  update.value = count;
  return update;
}

std::string NewHll() {
  std::string s(kHeaderSize, '\0');
  std::memcpy(s.data(), "HYLL", 4);
  s[kEncodingByte] = static_cast<char>(Encoding::kSparse);
  AppendXZero(s, kRegisters);
  return s;
}

bool HasValidHeader(std::string_view s) {
  if (s.size() < kHeaderSize || s.substr(0, 4) != "HYLL") return false;
  const uint8_t encoding = ByteAt(s, kEncodingByte);
  if (encoding > static_cast<uint8_t>(Encoding::kSparse)) return false;
  return encoding != static_cast<uint8_t>(Encoding::kDense) || s.size() == kDenseSize;
}

Encoding EncodingOf(std::string_view s) { return static_cast<Encoding>(ByteAt(s, kEncodingByte)); }

std::optional<uint64_t> CachedCardinality(std::string_view s) {
  if ((ByteAt(s, kCardinalityByte + 7) & kStaleBit) != 0) return std::nullopt;
  uint64_t value = 0;
  for (int b = 7; b >= 0; --b) value = (value << 8) | ByteAt(s, kCardinalityByte + b);
  return value;
}

void StoreCardinality(std::string& s, uint64_t cardinality) {
  for (size_t b = 0; b < 8; ++b) {
    s[kCardinalityByte + b] = static_cast<char>((cardinality >> (8 * b)) & 0xFF);
  }
}

void InvalidateCache(std::string& s) {
  s[kCardinalityByte + 7] = static_cast<char>(ByteAt(s, kCardinalityByte + 7) | kStaleBit);
}

SetResult SetRegister(std::string& s, int index, uint8_t value, uint64_t sparse_max_bytes) {
  if (EncodingOf(s) == Encoding::kDense) return DenseSet(s, index, value);
  return SparseSet(s, index, value, sparse_max_bytes);
}

SetResult Add(std::string& s, std::string_view element, uint64_t sparse_max_bytes) {
  const RegisterUpdate update = HashElement(element);
  return SetRegister(s, update.index, update.value, sparse_max_bytes);
}

bool ToDense(std::string& s) {
  if (EncodingOf(s) == Encoding::kDense) return true;
  std::string dense(kDenseSize, '\0');
  std::memcpy(dense.data(), s.data(), kHeaderSize);
  dense[kEncodingByte] = static_cast<char>(Encoding::kDense);
  const bool covered = ForEachSparseValue(s, [&](int index, int run, uint8_t value) {
    for (int i = 0; i < run; ++i) SetDenseRegister(dense, index + i, value);
  });
  if (!covered) return false;
  s = std::move(dense);
  return true;
}

bool MergeInto(RawRegisters& max, std::string_view s) {
  if (EncodingOf(s) == Encoding::kDense) {
    const std::string_view registers = s.substr(kHeaderSize);
    for (int i = 0; i < kRegisters; ++i) {
      const uint8_t value = DenseRegister(registers, i);
      if (value > max[static_cast<size_t>(i)]) max[static_cast<size_t>(i)] = value;
    }
    return true;
  }
  return ForEachSparseValue(s, [&](int index, int run, uint8_t value) {
    for (int i = 0; i < run; ++i) {
      uint8_t& reg = max[static_cast<size_t>(index + i)];
      if (value > reg) reg = value;
    }
  });
}

std::optional<uint64_t> Estimate(std::string_view s) {
  Histogram histogram{};
  if (EncodingOf(s) == Encoding::kDense) {
    const std::string_view registers = s.substr(kHeaderSize);
    for (int i = 0; i < kRegisters; ++i) ++histogram[DenseRegister(registers, i)];
    return EstimateFromHistogram(histogram);
  }
  // No bounds check on the runs (Redis's hllSparseRegHisto): only their sum must be right.
  int64_t index = 0;
  for (size_t p = kHeaderSize; p < s.size();) {
    const uint8_t op = ByteAt(s, p);
    const Opcode opcode = ReadOpcode(s, p);
    histogram[IsVal(op) ? ValValue(op) : 0] += opcode.run;
    index += opcode.run;
    p += opcode.length;
  }
  if (index != kRegisters) return std::nullopt;
  return EstimateFromHistogram(histogram);
}

uint64_t Estimate(const RawRegisters& registers) {
  Histogram histogram{};
  for (uint8_t value : registers) ++histogram[value & 63];
  return EstimateFromHistogram(histogram);
}

uint8_t DenseRegister(std::string_view registers, int index) {
  const size_t bit = static_cast<size_t>(index) * 6;
  const size_t byte = bit / 8;
  const int shift = static_cast<int>(bit & 7);
  const unsigned b0 = ByteAt(registers, byte);
  const unsigned b1 = ByteAt(registers, byte + 1);
  return static_cast<uint8_t>(((b0 >> shift) | (b1 << (8 - shift))) & 63);
}

std::string DescribeSparse(std::string_view s) {
  std::string out;
  for (size_t p = kHeaderSize; p < s.size();) {
    const uint8_t op = ByteAt(s, p);
    const Opcode opcode = ReadOpcode(s, p);
    if (!out.empty()) out.push_back(' ');
    if (IsZero(op)) {
      out += "z:" + std::to_string(opcode.run);
    } else if (IsXZero(op)) {
      out += "Z:" + std::to_string(opcode.run);
    } else {
      out += "v:" + std::to_string(ValValue(op)) + "," + std::to_string(opcode.run);
    }
    p += opcode.length;
  }
  return out;
}

}  // namespace sluice::server::hll
