#pragma once

// spdlog set up from the `loglevel` and `logfile` directives.

#include <string>

#include "common/status.h"

namespace sluice::server {

// Logs to `logfile` (appending) or to stderr when it is empty.
Status SetupLogging(const std::string& loglevel, const std::string& logfile);
// SIGHUP: close and reopen `logfile` (a no-op for stderr), so logrotate can move the old file
// away, and log the outcome. On failure the old file stays in use.
void ReopenLogFile(const std::string& logfile);
// Redis's levels: debug, verbose, notice, warning.
void ApplyLogLevel(const std::string& loglevel);

}  // namespace sluice::server
