#include "server/function_payload.h"

#include <array>
#include <cstdint>

namespace sluice::server {
namespace {

constexpr uint8_t kOpcodeFunction2 = 245;      // RDB_OPCODE_FUNCTION2
constexpr uint8_t kOpcodeFunctionPreGa = 246;  // RDB_OPCODE_FUNCTION_PRE_GA
constexpr uint16_t kRdbVersion = 10;           // Redis 7.0's RDB_VERSION
constexpr size_t kFooterSize = 10;             // version and CRC64

constexpr std::array<uint64_t, 256> MakeCrcTable() {
  std::array<uint64_t, 256> table{};
  for (uint64_t i = 0; i < 256; ++i) {
    uint64_t crc = i;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc & 1) ? (crc >> 1) ^ 0x95ac9329ac4bc9b5ULL : crc >> 1;
    table[i] = crc;
  }
  return table;
}
constexpr std::array<uint64_t, 256> kCrcTable = MakeCrcTable();

void AppendLength(std::string* out, uint64_t len) {
  if (len < 64) {
    out->push_back(static_cast<char>(len));
  } else if (len < 16384) {
    out->push_back(static_cast<char>(0x40 | (len >> 8)));
    out->push_back(static_cast<char>(len & 0xff));
  } else {
    const bool fits32 = len <= UINT32_MAX;
    out->push_back(static_cast<char>(fits32 ? 0x80 : 0x81));
    for (int shift = fits32 ? 24 : 56; shift >= 0; shift -= 8) {
      out->push_back(static_cast<char>((len >> shift) & 0xff));
    }
  }
}

void AppendLittleEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// Reads an RDB payload front to back; every read checks what is left.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  size_t left() const { return data_.size() - pos_; }

  bool Byte(uint8_t* out) {
    if (left() < 1) return false;
    *out = static_cast<uint8_t>(data_[pos_++]);
    return true;
  }

  bool BigEndian(int bytes, uint64_t* out) {
    if (left() < static_cast<size_t>(bytes)) return false;
    *out = 0;
    for (int i = 0; i < bytes; ++i) *out = (*out << 8) | static_cast<uint8_t>(data_[pos_++]);
    return true;
  }

  // An RDB length; `encoded` is set (with its kind in *len) for a specially encoded string.
  bool Length(uint64_t* len, bool* encoded) {
    uint8_t first = 0;
    if (!Byte(&first)) return false;
    *encoded = false;
    switch (first >> 6) {
      case 0:
        *len = first & 0x3f;
        return true;
      case 1: {
        uint8_t second = 0;
        if (!Byte(&second)) return false;
        *len = (static_cast<uint64_t>(first & 0x3f) << 8) | second;
        return true;
      }
      case 2:
        if (first == 0x80) return BigEndian(4, len);
        if (first == 0x81) return BigEndian(8, len);
        return false;
      default:
        *encoded = true;
        *len = first & 0x3f;
        return true;
    }
  }

  bool Bytes(uint64_t len, std::string* out) {
    if (left() < len) return false;
    out->assign(data_.substr(pos_, len));
    pos_ += len;
    return true;
  }

  // rdbGenericLoadStringObject: plain, integer-encoded or LZF-compressed.
  bool String(std::string* out) {
    uint64_t len = 0;
    bool encoded = false;
    if (!Length(&len, &encoded)) return false;
    if (!encoded) return Bytes(len, out);
    if (len <= 2) {  // an integer of 1, 2 or 4 bytes, little-endian
      const int bytes = 1 << len;
      if (left() < static_cast<size_t>(bytes)) return false;
      uint64_t raw = 0;
      for (int i = 0; i < bytes; ++i)
        raw |= uint64_t{static_cast<uint8_t>(data_[pos_++])} << (8 * i);
      const int shift = 64 - 8 * bytes;
      *out = std::to_string(static_cast<int64_t>(raw << shift) >> shift);
      return true;
    }
    if (len != 3) return false;
    uint64_t compressed_len = 0, plain_len = 0;
    bool unused = false;
    std::string compressed;
    if (!Length(&compressed_len, &unused) || unused || !Length(&plain_len, &unused) || unused ||
        !Bytes(compressed_len, &compressed)) {
      return false;
    }
    return LzfDecompress(compressed, plain_len, out);
  }

 private:
  // liblzf's format: a control byte below 32 starts a literal run of ctrl+1 bytes; above, a
  // back reference of length (ctrl >> 5) + 2 (7 meaning a further length byte).
  static bool LzfDecompress(std::string_view in, uint64_t plain_len, std::string* out) {
    out->clear();
    out->reserve(plain_len);
    size_t i = 0;
    while (i < in.size()) {
      const uint8_t ctrl = static_cast<uint8_t>(in[i++]);
      if (ctrl < 32) {
        const size_t run = ctrl + 1u;
        if (in.size() - i < run || out->size() + run > plain_len) return false;
        out->append(in.substr(i, run));
        i += run;
        continue;
      }
      size_t len = ctrl >> 5;
      if (len == 7) {
        if (i >= in.size()) return false;
        len += static_cast<uint8_t>(in[i++]);
      }
      if (i >= in.size()) return false;
      const size_t back = ((ctrl & 0x1fu) << 8) + static_cast<uint8_t>(in[i++]) + 1;
      len += 2;
      if (back > out->size() || out->size() + len > plain_len) return false;
      for (size_t k = 0; k < len; ++k) out->push_back((*out)[out->size() - back]);
    }
    return out->size() == plain_len;
  }

  std::string_view data_;
  size_t pos_ = 0;
};

}  // namespace

uint64_t Crc64(uint64_t crc, std::string_view data) {
  for (char c : data) crc = kCrcTable[(crc ^ static_cast<uint8_t>(c)) & 0xff] ^ (crc >> 8);
  return crc;
}

std::string EncodeFunctionPayload(std::span<const std::string_view> codes) {
  std::string out;
  for (std::string_view code : codes) {
    out.push_back(static_cast<char>(kOpcodeFunction2));
    AppendLength(&out, code.size());
    out.append(code);
  }
  AppendLittleEndian(&out, kRdbVersion, 2);
  AppendLittleEndian(&out, Crc64(0, out), 8);
  return out;
}

StatusOr<std::vector<std::string>> DecodeFunctionPayload(std::string_view payload) {
  const Status bad_footer = Err("DUMP payload version or checksum are wrong");
  if (payload.size() < kFooterSize) return bad_footer;
  const std::string_view footer = payload.substr(payload.size() - kFooterSize);
  const uint16_t version = static_cast<uint8_t>(footer[0]) | (static_cast<uint8_t>(footer[1]) << 8);
  if (version > kRdbVersion) return bad_footer;
  uint64_t stored_crc = 0;
  for (int i = 7; i >= 0; --i) stored_crc = (stored_crc << 8) | static_cast<uint8_t>(footer[2 + i]);
  if (Crc64(0, payload.substr(0, payload.size() - 8)) != stored_crc) return bad_footer;

  Reader reader(payload.substr(0, payload.size() - kFooterSize));
  std::vector<std::string> codes;
  while (reader.left() > 0) {
    uint8_t type = 0;
    if (!reader.Byte(&type)) return Err("can not read data type");
    if (type == kOpcodeFunctionPreGa) return Err("Pre-GA function format not supported");
    if (type != kOpcodeFunction2) return Err("given type is not a function");
    std::string code;
    if (!reader.String(&code)) return Err("Failed loading library payload");
    codes.push_back(std::move(code));
  }
  return codes;
}

}  // namespace sluice::server
