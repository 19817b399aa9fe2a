#pragma once

// The one error type of sluice: a short code plus a message. No exceptions on the
// command path; resp/error_prefix.h maps codes to RESP error prefixes.

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sluice {

enum class Code : uint8_t {
  kOk = 0,
  kErr,        // -ERR <message>
  kSyntax,     // -ERR syntax error (message is the full text after the prefix)
  kWrongType,  // -WRONGTYPE ...
  kNoScript,   // -NOSCRIPT ...
  kBusy,       // -BUSY ...
  kNoAuth,     // -NOAUTH ...
  kWrongPass,  // -WRONGPASS ...
  kNoPerm,     // -NOPERM ...
  kExecAbort,  // -EXECABORT ...
  kMisconf,    // -MISCONF ...
  kUnkillable, // -UNKILLABLE ...
  kNotBusy,    // -NOTBUSY ...
  kIo,         // storage failure, replied as -ERR
  kProtocol,   // malformed request: -ERR Protocol error: ..., then the connection closes
  kRaw,        // message already carries its own prefix (redis.error_reply('x') -> -x)
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// Shorthands for the common codes.
inline Status Err(std::string message) { return {Code::kErr, std::move(message)}; }
inline Status IoError(std::string message) { return {Code::kIo, std::move(message)}; }
// A failed system call on a file, from errno: "<what> '<path>': <strerror>".
inline Status IoErrno(std::string_view what, const std::string& path) {
  return IoError(std::string(what) + " '" + path + "': " + std::strerror(errno));
}

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  StatusOr(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> v_;
};

// Early return on a failed Status / StatusOr.
#define SLUICE_RETURN_IF_ERROR(expr)      \
  do {                                    \
    ::sluice::Status _st = (expr);        \
    if (!_st.ok()) return _st;            \
  } while (0)

}  // namespace sluice
