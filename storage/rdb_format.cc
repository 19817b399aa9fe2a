#include "storage/rdb_format.h"

#include <lzf.h>

#include "storage/crc64.h"

namespace sluice::storage {

void AppendRdbLength(std::string* out, uint64_t length) {
  if (length < (1 << 6)) {
    out->push_back(static_cast<char>(length));
  } else if (length < (1 << 14)) {
    out->push_back(static_cast<char>(0x40 | (length >> 8)));
    out->push_back(static_cast<char>(length & 0xff));
  } else {
    const bool fits32 = length <= UINT32_MAX;
    out->push_back(static_cast<char>(fits32 ? 0x80 : 0x81));
    for (int shift = fits32 ? 24 : 56; shift >= 0; shift -= 8) {
      out->push_back(static_cast<char>(length >> shift));
    }
  }
}

void AppendRdbString(std::string* out, std::string_view s) {
  AppendRdbLength(out, s.size());
  out->append(s);
}

void SealRdbPayload(std::string* out) {
  out->push_back(static_cast<char>(kRdbVersion & 0xff));
  out->push_back(static_cast<char>(kRdbVersion >> 8));
  const uint64_t crc = Crc64Jones(0, *out);
  for (int shift = 0; shift < 64; shift += 8) out->push_back(static_cast<char>(crc >> shift));
}

bool RdbFooterValid(std::string_view payload) {
  if (payload.size() < kRdbFooterSize) return false;
  RdbReader footer(payload.substr(payload.size() - kRdbFooterSize));
  const auto version = footer.Unsigned(2, /*big=*/false);
  const auto crc = footer.Unsigned(8, /*big=*/false);
  return *version <= kRdbVersion && *crc == Crc64Jones(0, payload.substr(0, payload.size() - 8));
}

std::string SignedDecimal(uint64_t raw, int bytes) {
  const int unused = 64 - 8 * bytes;
  return std::to_string(static_cast<int64_t>(raw << unused) >> unused);
}

std::optional<uint8_t> RdbReader::Byte() {
  if (remaining() < 1) return std::nullopt;
  return static_cast<uint8_t>(data_[pos_++]);
}

std::optional<std::string_view> RdbReader::Bytes(uint64_t n) {
  if (remaining() < n) return std::nullopt;
  std::string_view out = data_.substr(pos_, n);
  pos_ += n;
  return out;
}

std::optional<uint64_t> RdbReader::Unsigned(int n, bool big) {
  auto bytes = Bytes(static_cast<uint64_t>(n));
  if (!bytes) return std::nullopt;
  uint64_t value = 0;
  for (int i = 0; i < n; ++i) {
    const auto byte = static_cast<uint8_t>((*bytes)[static_cast<size_t>(big ? i : n - 1 - i)]);
    value = (value << 8) | byte;
  }
  return value;
}

std::optional<uint64_t> RdbReader::Length(bool* encoded) {
  auto first = Byte();
  if (!first) return std::nullopt;
  if (encoded != nullptr) *encoded = false;
  switch (*first >> 6) {
    case 0:
      return *first & 0x3f;
    case 1: {
      auto next = Byte();
      if (!next) return std::nullopt;
      return (uint64_t{*first & 0x3fu} << 8) | *next;
    }
    case 2:
      if (*first == 0x80) return Unsigned(4, /*big=*/true);
      if (*first == 0x81) return Unsigned(8, /*big=*/true);
      return std::nullopt;
    default:
      if (encoded == nullptr) return std::nullopt;
      *encoded = true;
      return *first & 0x3f;
  }
}

std::optional<std::string> RdbReader::String() {
  bool encoded = false;
  auto length = Length(&encoded);
  if (!length) return std::nullopt;
  if (!encoded) {
    auto bytes = Bytes(*length);
    if (!bytes) return std::nullopt;
    return std::string(*bytes);
  }
  if (*length <= 2) {  // an integer of 1, 2 or 4 bytes
    const int size = 1 << *length;
    auto raw = Unsigned(size, /*big=*/false);
    if (!raw) return std::nullopt;
    return SignedDecimal(*raw, size);
  }
  if (*length == 3) return Lzf();
  return std::nullopt;
}

std::optional<std::string> RdbReader::Lzf() {
  auto compressed_length = Length();
  auto length = Length();
  if (!compressed_length || !length || *length == 0) return std::nullopt;
  auto compressed = Bytes(*compressed_length);
  // A back reference of three bytes copies at most 264: LZF expands no more than 88 times,
  // and a claimed length beyond that cannot be true (it would only be an allocation).
  if (!compressed || *length > 88 * *compressed_length + 8) return std::nullopt;
  std::string out(*length, '\0');
  const unsigned produced =
      lzf_decompress(compressed->data(), static_cast<unsigned>(compressed->size()), out.data(),
                     static_cast<unsigned>(out.size()));
  if (produced != *length) return std::nullopt;
  return out;
}

}  // namespace sluice::storage
