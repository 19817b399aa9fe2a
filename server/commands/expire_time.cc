#include "server/commands/expire_time.h"

#include <limits>
#include <string>

#include "resp/error_messages.h"
#include "server/arg_cursor.h"

namespace sluice::server {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Status InvalidExpireTime(std::string_view command) {
  return Err(resp::InvalidExpireTime(command));
}

bool IsSeconds(ExpireUnit unit) {
  return unit == ExpireUnit::kRelativeSeconds || unit == ExpireUnit::kAbsoluteSeconds;
}

bool IsRelative(ExpireUnit unit) {
  return unit == ExpireUnit::kRelativeSeconds || unit == ExpireUnit::kRelativeMillis;
}

}  // namespace

std::optional<ExpireUnit> ExpireOptionUnit(std::string_view option) {
  if (EqualsIgnoreCase(option, "EX")) return ExpireUnit::kRelativeSeconds;
  if (EqualsIgnoreCase(option, "PX")) return ExpireUnit::kRelativeMillis;
  if (EqualsIgnoreCase(option, "EXAT")) return ExpireUnit::kAbsoluteSeconds;
  if (EqualsIgnoreCase(option, "PXAT")) return ExpireUnit::kAbsoluteMillis;
  return std::nullopt;
}

StatusOr<int64_t> ParseSetExpire(std::string_view arg, ExpireUnit unit, int64_t now_ms,
                                 std::string_view command) {
  int64_t value = 0;
  if (!ParseInt64(arg, &value)) return NotIntegerError();
  if (value <= 0 || (IsSeconds(unit) && value > kMax / 1000)) return InvalidExpireTime(command);
  if (IsSeconds(unit)) value *= 1000;
  if (IsRelative(unit) && __builtin_add_overflow(value, now_ms, &value)) {
    return InvalidExpireTime(command);
  }
  if (value <= 0) return InvalidExpireTime(command);
  return value;
}

StatusOr<int64_t> ParseExpireCommandTime(std::string_view arg, ExpireUnit unit, int64_t now_ms,
                                         std::string_view command) {
  int64_t value = 0;
  if (!ParseInt64(arg, &value)) return NotIntegerError();
  if (IsSeconds(unit)) {
    if (value > kMax / 1000 || value < kMin / 1000) return InvalidExpireTime(command);
    value *= 1000;
  }
  int64_t base = IsRelative(unit) ? now_ms : 0;
  if (value > kMax - base) return InvalidExpireTime(command);
  return value + base;
}

}  // namespace sluice::server
