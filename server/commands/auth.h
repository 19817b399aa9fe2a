#pragma once

// Password checks shared by AUTH and HELLO ... AUTH.

#include <string_view>

#include "common/status.h"
#include "server/command_context.h"

namespace sluice::server {

// Compares in time independent of where the inputs differ (no early exit on a mismatch).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// Authenticates `username`/`password` against the ACL's users. On success the client runs as
// that user; otherwise WRONGPASS (and an ACL LOG entry), the client unchanged.
Status Authenticate(CommandContext& ctx, std::string_view username, std::string_view password);

}  // namespace sluice::server
