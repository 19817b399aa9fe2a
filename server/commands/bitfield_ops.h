#pragma once

// The integer fields of BITFIELD: signed or unsigned integers of 1 to 64 bits at any bit
// offset of a string, most significant bit first (as SETBIT numbers bits), and what SET and
// INCRBY store under each OVERFLOW mode, as Redis 7.0's bitops.c computes it; no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::server::bits {

struct FieldType {
  bool is_signed = false;
  int bits = 0;  // 1..64 signed, 1..63 unsigned (so every value fits an int64 reply)
};

// "i1".."i64" or "u1".."u63", as Redis's getBitfieldTypeFromArgument (which reads the width
// as a C string: it ends at a NUL byte); nullopt otherwise.
std::optional<FieldType> ParseFieldType(std::string_view arg);

enum class Overflow { kWrap, kSat, kFail };

// The field at bit `offset`, reading zeros past the end of `s`; a signed field sign-extended.
int64_t GetField(std::string_view s, uint64_t offset, FieldType type);
// Stores the low type.bits bits of `value` at `offset`; `s` must be long enough.
void SetField(std::string& s, uint64_t offset, FieldType type, int64_t value);

// What a field stores for SET `value`, or nullopt when it does not fit and `overflow` is
// kFail. Redis's check: an unsigned field takes the value as its 64-bit two's complement, so
// a negative one is "too large" (SAT stores the maximum).
std::optional<int64_t> FieldForSet(FieldType type, int64_t value, Overflow overflow);
// What a field holding `old` stores for INCRBY `increment`, or nullopt on kFail overflow.
std::optional<int64_t> FieldForIncrBy(FieldType type, int64_t old, int64_t increment,
                                      Overflow overflow);

}  // namespace sluice::server::bits
