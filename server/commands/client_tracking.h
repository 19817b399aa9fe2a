#pragma once

// CLIENT's client-side caching subcommands (server/tracking.h), for CLIENT's table.

#include "server/command_context.h"
#include "server/command_table.h"

namespace sluice::server {

void ClientTrackingSub(CommandContext& ctx, Args args);
void ClientCachingSub(CommandContext& ctx, Args args);
void ClientGetRedirSub(CommandContext& ctx, Args args);
void ClientTrackingInfoSub(CommandContext& ctx, Args args);

}  // namespace sluice::server
