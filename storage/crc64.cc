#include "storage/crc64.h"

#include <array>

namespace sluice::storage {
namespace {

// The polynomial with its bits in reverse order, for a reflected (least significant bit
// first) CRC.
constexpr uint64_t kReflectedPolynomial = [] {
  constexpr uint64_t kPolynomial = 0xad93d23594c935a9ULL;
  uint64_t reflected = 0;
  for (int bit = 0; bit < 64; ++bit) {
    if ((kPolynomial >> bit) & 1) reflected |= uint64_t{1} << (63 - bit);
  }
  return reflected;
}();

// One entry per byte value: the CRC register after shifting that byte through it.
constexpr std::array<uint64_t, 256> kTable = [] {
  std::array<uint64_t, 256> table{};
  for (uint64_t byte = 0; byte < 256; ++byte) {
    uint64_t crc = byte;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc & 1) ? (crc >> 1) ^ kReflectedPolynomial : crc >> 1;
    table[byte] = crc;
  }
  return table;
}();

}  // namespace

uint64_t Crc64Jones(uint64_t crc, std::string_view data) {
  for (char c : data) crc = kTable[(crc ^ static_cast<uint8_t>(c)) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace sluice::storage
