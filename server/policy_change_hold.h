#pragma once

// Which keys of named policies a pending policy change keeps past their expiry
// (storage::ExpiryHold): a state of a changed policy may have been written under the replaced
// definition, whose expiry the new one may lengthen. Only such a state holds its key, and only
// until its policy's changes settle; states of other policies expire on time.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "storage/record.h"

namespace sluice::server {

class PolicyChangeHold final : public storage::LimiterPayloadFilter {
 public:
  // A changed policy's states that expire at or after `from_ms` (its first unsettled change)
  // are kept until `until_ms` (when its last change settles).
  struct Window {
    int64_t from_ms = 0;
    int64_t until_ms = 0;
  };
  using Windows = std::map<std::string, Window, std::less<>>;

  // Before the policies are read: every state of every policy, whenever it expires.
  static std::shared_ptr<const PolicyChangeHold> Everything();
  explicit PolicyChangeHold(Windows windows) : windows_(std::move(windows)) {}

  // The storage hold: from the earliest change until the last settles, filtered by this.
  static storage::ExpiryHold AsExpiryHold(std::shared_ptr<const PolicyChangeHold> hold);

  // Whether a state of `policy` expiring at `expire_at_ms` is kept at `now_ms`.
  bool KeepsState(std::string_view policy, int64_t expire_at_ms, int64_t now_ms) const;
  // Whether a limiter record with this payload is kept: a key of named policies holding a
  // state KeepsState keeps. Immutable: the compaction filter's threads call it too.
  bool Keeps(std::string_view payload, int64_t now_ms) const override;

 private:
  PolicyChangeHold() = default;

  bool everything_ = false;
  Windows windows_;
};

}  // namespace sluice::server
