#pragma once

// INFO's text, section by section, as Redis 7.0 formats it ("# Section\r\nfield:value\r\n").

#include <span>
#include <string>
#include <string_view>

#include "server/command_context.h"

namespace sluice::server {

// `sections` as INFO's arguments: empty or "default"/"all"/"everything", or section names.
std::string BuildInfo(CommandContext& ctx, std::span<const std::string_view> sections);

}  // namespace sluice::server
