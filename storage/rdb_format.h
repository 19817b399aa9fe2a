#pragma once

// The pieces of Redis's RDB format that DUMP payloads are made of (DUMP and RESTORE's values,
// FUNCTION DUMP and RESTORE's libraries): lengths, strings and the payload's footer,
//   <body> <RDB version: 2 bytes, little endian> <CRC-64 of all before it: 8 bytes, LE>
// as Redis 7.0 writes and reads them (rdb.c, cluster.c's verifyDumpPayload).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::storage {

inline constexpr uint16_t kRdbVersion = 10;  // Redis 7.0's RDB_VERSION
inline constexpr size_t kRdbFooterSize = 10;

// An RDB length: 6 bits, 14 bits, or a marker byte and 32 or 64 bits, big endian.
void AppendRdbLength(std::string* out, uint64_t length);
// A plain RDB string (its length, then its bytes); sluice never compresses.
void AppendRdbString(std::string* out, std::string_view s);
// Appends the footer: Redis 7.0's RDB version and the CRC of `*out` with it.
void SealRdbPayload(std::string* out);
// Whether the footer holds a version Redis 7.0 reads (at most 10) and the CRC of the rest.
bool RdbFooterValid(std::string_view payload);

// Reads RDB values front to back; every read fails (nullopt) past the end.
class RdbReader {
 public:
  explicit RdbReader(std::string_view data) : data_(data) {}

  size_t remaining() const { return data_.size() - pos_; }

  std::optional<uint8_t> Byte();
  std::optional<std::string_view> Bytes(uint64_t n);
  // An unsigned integer of `n` bytes (1 to 8), big endian (`big`) or little endian.
  std::optional<uint64_t> Unsigned(int n, bool big);
  // An RDB length. A special string encoding's marker is a length only where `encoded` is
  // given: it is set then, with the encoding's number as the result.
  std::optional<uint64_t> Length(bool* encoded = nullptr);
  // An RDB string, as rdbGenericLoadStringObject: plain, an integer of 8, 16 or 32 bits
  // (in decimal), or LZF compressed (Debian's liblzf).
  std::optional<std::string> String();

 private:
  std::optional<std::string> Lzf();

  std::string_view data_;
  size_t pos_ = 0;
};

// `raw`'s low `bytes` bytes as a signed integer (two's complement), in decimal.
std::string SignedDecimal(uint64_t raw, int bytes);

}  // namespace sluice::storage
