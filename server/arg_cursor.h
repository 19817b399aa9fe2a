#pragma once

// A small cursor over a command's arguments, so parsers read like the syntax they accept:
//
//   ArgCursor cur(args);                       // args exclude the command name
//   std::string_view key = cur.Next();
//   int64_t limit = cur.NextPositive("limit must be a positive integer");
//   while (!cur.Done()) {
//     if (cur.NextIf("COST")) cost = cur.NextNonNegative("cost must be a non-negative integer");
//     else cur.Fail(SyntaxError());
//   }
//   if (!cur.ok()) return cur.status();
//
// The first error is latched and later ones are ignored. Once an error is latched, every Next*
// returns a zero value without consuming anything, NextIf returns false, and Done() is true, so
// an option loop like the one above always ends.
//
// The number parsers follow Redis exactly: ParseInt64 is util.c's string2ll, ParseDouble is
// object.c's getDoubleFromObject (strtod, then refuse what Redis refuses).

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "common/ascii.h"
#include "common/plain_integer.h"
#include "common/status.h"
#include "common/string2ll.h"
#include "resp/error_messages.h"  // the texts only (inline constants): no link dependency

namespace sluice::server {

// Redis's errors: shared.syntaxerr, getLongLongFromObjectOrReply, getDoubleFromObjectOrReply.
inline Status SyntaxError() { return {Code::kSyntax, std::string(resp::kSyntaxError)}; }
inline Status NotIntegerError() { return Err(std::string(resp::kNotInteger)); }
inline Status NotFloatError() { return Err(std::string(resp::kNotFloat)); }

namespace arg_cursor_internal {

// Digits of an unsigned decimal with Redis's string2ll shape: "0", or a non-zero digit followed
// by digits. Rejects leading zeros, signs, spaces and overflow past UINT64_MAX.
inline bool ParseDigits(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  if (s[0] < '1' || s[0] > '9') return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

inline bool IsCSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

}  // namespace arg_cursor_internal

// Redis's string2ll (common/string2ll.h).
using ::sluice::ParseInt64;

// The unsigned counterpart with the same strict shape: no sign at all, up to UINT64_MAX.
inline bool ParseUint64(std::string_view s, uint64_t* out) {
  return arg_cursor_internal::ParseDigits(s, out);
}

// A whole string that is a plain integer of at most 15 digits (common/plain_integer.h): the
// common case of ParseDouble and of score bounds, read without strtod.
inline bool ParsePlainInteger(std::string_view s, double* out) {
  double value = 0;
  if (s.empty() || ReadPlainInteger(s.data(), s.size(), &value) != s.size()) return false;
  *out = value;  // only on success, as ParseDouble promises
  return true;
}

// Redis's getDoubleFromObject: strtod over the whole string. Accepts what strtod accepts
// ("1.5", "+2", "1e3", "inf", "-inf", "+inf", "infinity", hex floats); refuses the empty string,
// a leading space, trailing bytes, NaN, overflow ("1e400") and underflow to zero ("1e-400").
// strtod follows LC_NUMERIC; the daemon never changes it from "C".
inline bool ParseDouble(std::string_view s, double* out) {
  if (ParsePlainInteger(s, out)) return true;
  if (s.empty() || arg_cursor_internal::IsCSpace(s[0])) return false;
  char small[64];
  std::string large;
  const char* text = nullptr;
  if (s.size() < sizeof(small)) {
    std::memcpy(small, s.data(), s.size());
    small[s.size()] = '\0';
    text = small;
  } else {
    large.assign(s);
    text = large.c_str();
  }
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text, &end);
  if (static_cast<size_t>(end - text) != s.size()) return false;  // trailing bytes or a NUL
  if (errno == ERANGE && (value == HUGE_VAL || value == -HUGE_VAL || value == 0.0)) return false;
  if (std::isnan(value)) return false;
  *out = value;
  return true;
}

using Args = std::span<const std::string_view>;

class ArgCursor {
 public:
  explicit ArgCursor(Args args) : args_(args) {}

  // True when every argument is consumed, or when an error is latched.
  bool Done() const { return !status_.ok() || pos_ >= args_.size(); }
  // Arguments not yet consumed (regardless of any latched error).
  size_t Remaining() const { return args_.size() - pos_; }
  // The next argument without consuming it; "" when there is none or an error is latched.
  std::string_view Peek() const { return Done() ? std::string_view() : args_[pos_]; }

  // The next argument as is. On exhaustion latches a syntax error and returns "".
  std::string_view Next() {
    if (!status_.ok()) return {};
    if (pos_ >= args_.size()) {
      Fail(SyntaxError());
      return {};
    }
    return args_[pos_++];
  }

  // Typed: int64_t (string2ll), uint64_t (same shape, no sign), double (ParseDouble),
  // std::string_view (as Next()). A value that does not parse is consumed and latches Redis's
  // error ("value is not an integer or out of range" / "value is not a valid float");
  // the returned value is then 0.
  template <typename T>
  T Next();

  // Case-insensitive: consumes the next argument and returns true if it equals keyword.
  bool NextIf(std::string_view keyword) {
    if (Done() || !EqualsIgnoreCase(args_[pos_], keyword)) return false;
    ++pos_;
    return true;
  }

  // An int64_t; a value that does not parse latches Err(error_message) (e.g. "capacity must be
  // a positive integer"); exhaustion latches a syntax error.
  int64_t NextInt(std::string_view error_message) {
    return NextIntIf(error_message, [](int64_t) { return true; });
  }
  // As NextInt, and the value must be > 0.
  int64_t NextPositive(std::string_view error_message) {
    return NextIntIf(error_message, [](int64_t v) { return v > 0; });
  }
  // As NextInt, and the value must be >= 0.
  int64_t NextNonNegative(std::string_view error_message) {
    return NextIntIf(error_message, [](int64_t v) { return v >= 0; });
  }

  // Latches an error; the first one wins. An OK status is ignored.
  void Fail(Status status) {
    if (status_.ok()) status_ = std::move(status);
  }

  bool ok() const { return status_.ok(); }
  // The first latched error (OK if none).
  const Status& status() const { return status_; }

 private:
  template <typename Pred>
  int64_t NextIntIf(std::string_view error_message, Pred pred) {
    if (!status_.ok()) return 0;
    if (pos_ >= args_.size()) {
      Fail(SyntaxError());
      return 0;
    }
    int64_t value = 0;
    if (!ParseInt64(args_[pos_++], &value) || !pred(value)) {
      Fail(Err(std::string(error_message)));
      return 0;
    }
    return value;
  }

  // Consumes the next argument for a typed Next<T>; false (latching an error) when there is none.
  bool Take(std::string_view* arg) {
    if (!status_.ok()) return false;
    if (pos_ >= args_.size()) {
      Fail(SyntaxError());
      return false;
    }
    *arg = args_[pos_++];
    return true;
  }

  Args args_;
  size_t pos_ = 0;
  Status status_;
};

template <typename T>
T ArgCursor::Next() {
  static_assert(sizeof(T) == 0,
                "ArgCursor::Next<T>: T must be int64_t, uint64_t, double or "
                "std::string_view");
  return T{};
}

template <>
inline std::string_view ArgCursor::Next<std::string_view>() {
  return Next();
}

template <>
inline int64_t ArgCursor::Next<int64_t>() {
  std::string_view arg;
  if (!Take(&arg)) return 0;
  int64_t value = 0;
  if (!ParseInt64(arg, &value)) {
    Fail(NotIntegerError());
    return 0;
  }
  return value;
}

template <>
inline uint64_t ArgCursor::Next<uint64_t>() {
  std::string_view arg;
  if (!Take(&arg)) return 0;
  uint64_t value = 0;
  if (!ParseUint64(arg, &value)) {
    Fail(NotIntegerError());
    return 0;
  }
  return value;
}

template <>
inline double ArgCursor::Next<double>() {
  std::string_view arg;
  if (!Take(&arg)) return 0;
  double value = 0;
  if (!ParseDouble(arg, &value)) {
    Fail(NotFloatError());
    return 0;
  }
  return value;
}

}  // namespace sluice::server
