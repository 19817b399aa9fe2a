#include "scripting/sha1.h"

#include <openssl/evp.h>

#include <algorithm>

namespace sluice::scripting {
namespace {

std::string DigestHex(std::string_view data, const EVP_MD* md, unsigned int size) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // EVP_Digest is the non-deprecated one-shot API of OpenSSL 3; it cannot fail on memory
  // input short of an allocation failure, after which the digest is all zeros.
  if (EVP_Digest(data.data(), data.size(), digest, &length, md, nullptr) != 1) {
    length = size;
    std::fill(digest, digest + length, 0);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(length * 2, '0');
  for (unsigned int i = 0; i < length; ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 0xf];
  }
  return hex;
}

}  // namespace

std::string Sha1Hex(std::string_view data) { return DigestHex(data, EVP_sha1(), 20); }

std::string Sha256Hex(std::string_view data) { return DigestHex(data, EVP_sha256(), 32); }

}  // namespace sluice::scripting
