#pragma once

// Password checks shared by AUTH and HELLO ... AUTH.

#include <string_view>

#include "common/status.h"
#include "server/command_context.h"

namespace sluice::server {

// Compares in time independent of where the inputs differ (no early exit on a mismatch).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// Authenticates `username`/`password` against requirepass, as Redis's default user: only
// "default" exists. On success marks the client authenticated; otherwise WRONGPASS.
Status Authenticate(CommandContext& ctx, std::string_view username, std::string_view password);

}  // namespace sluice::server
