#pragma once

// Number to text exactly as Redis prints it: integers as ll2string, doubles as "%.17g" with
// "inf"/"-inf" (Redis 7.0 addReplyDouble, and the Lua bridge's number formatting). No locale,
// no allocation beyond the appended bytes.

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::resp {

// Enough for INT64_MIN and for any "%.17g" (e.g. "-2.2250738585072014e-308").
inline constexpr size_t kNumberBufferSize = 32;

// Writes into buf (at least kNumberBufferSize bytes) and returns the text.
std::string_view FormatInt(int64_t v, char* buf);
std::string_view FormatDouble(double d, char* buf);

void AppendInt(int64_t v, std::string* out);
void AppendDouble(double d, std::string* out);

}  // namespace sluice::resp
