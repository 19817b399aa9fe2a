#include "scripting/sha1.h"

#include <openssl/evp.h>

#include <algorithm>

namespace sluice::scripting {

std::string Sha1Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // EVP_Digest is the non-deprecated one-shot API of OpenSSL 3; it cannot fail for SHA1 on
  // memory input short of an allocation failure, after which the digest is all zeros.
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha1(), nullptr) != 1) {
    length = 20;
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

}  // namespace sluice::scripting
