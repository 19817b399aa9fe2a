#pragma once

// An fdatasync of a file or a directory by its path, through a descriptor of its own: it covers
// every write made to the file before it, through any descriptor (and, for a directory, the
// entries created or renamed in it).

#include <string>

#include "common/status.h"

namespace sluice::storage {

// `missing_ok`: a path deleted meanwhile is Ok (an obsolete WAL file).
Status SyncPath(const std::string& path, bool missing_ok);

}  // namespace sluice::storage
