#pragma once

// The config file's own reads and writes for CONFIG REWRITE, also the ACL file's (ACL LOAD,
// ACL SAVE): plain POSIX calls, with the system's text for an error (what Redis's reply
// carries).

#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::server::config_internal {

// The file's bytes; "" when there is no such file (Redis then writes one from scratch).
StatusOr<std::string> ReadFileIfAny(const std::string& path);

// The file's bytes; a missing file is an error too ("No such file or directory").
StatusOr<std::string> ReadWholeFile(const std::string& path);

// Replaces the file at `path` with `content` so that a crash leaves either the old file or the
// new one: a new file beside it (same directory, so the rename stays on one file system) is
// written, synced and renamed over it, then the directory is synced. The new file has the old
// one's permissions, or 0644 less the umask for a first one (Redis's mode). On an error the
// old file is untouched and the temporary one removed.
Status ReplaceFileAtomically(const std::string& path, std::string_view content);

}  // namespace sluice::server::config_internal
