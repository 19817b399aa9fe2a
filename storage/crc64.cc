#include "storage/crc64.h"

#include <array>
#include <cstring>

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

// Slicing by eight: kTables[0][b] is the CRC register after shifting byte b through it, and
// kTables[k][b] the same followed by k zero bytes. Eight bytes then take eight lookups that do
// not wait on each other, where a byte at a time chains every lookup on the one before (a
// 64 MB DUMP spent a third of its time here).
using Table = std::array<uint64_t, 256>;
constexpr std::array<Table, 8> kTables = [] {
  std::array<Table, 8> tables{};
  for (uint64_t byte = 0; byte < 256; ++byte) {
    uint64_t crc = byte;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc & 1) ? (crc >> 1) ^ kReflectedPolynomial : crc >> 1;
    tables[0][byte] = crc;
  }
  for (size_t k = 1; k < tables.size(); ++k) {
    for (size_t byte = 0; byte < 256; ++byte) {
      const uint64_t previous = tables[k - 1][byte];
      tables[k][byte] = (previous >> 8) ^ tables[0][previous & 0xff];
    }
  }
  return tables;
}();

uint64_t ByteAtATime(uint64_t crc, std::string_view data) {
  for (char c : data) crc = kTables[0][(crc ^ static_cast<uint8_t>(c)) & 0xff] ^ (crc >> 8);
  return crc;
}

uint64_t LoadLittleEndian64(const char* p) {
  uint8_t b[8];
  std::memcpy(b, p, 8);
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];  // one load on a little-endian machine
  return v;
}

}  // namespace

uint64_t Crc64Jones(uint64_t crc, std::string_view data) {
  size_t i = 0;
  for (; i + 8 <= data.size(); i += 8) {
    crc ^= LoadLittleEndian64(data.data() + i);
    crc = kTables[7][crc & 0xff] ^ kTables[6][(crc >> 8) & 0xff] ^ kTables[5][(crc >> 16) & 0xff] ^
          kTables[4][(crc >> 24) & 0xff] ^ kTables[3][(crc >> 32) & 0xff] ^
          kTables[2][(crc >> 40) & 0xff] ^ kTables[1][(crc >> 48) & 0xff] ^ kTables[0][crc >> 56];
  }
  return ByteAtATime(crc, data.substr(i));
}

}  // namespace sluice::storage
