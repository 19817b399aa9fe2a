#pragma once

// Splitting text at a one-byte separator as Redis's sdssplitlen does: how Redis cuts a config
// file or an ACL file into lines, and an ACL file's line into words.

#include <string_view>
#include <vector>

namespace sluice {

// The parts of `text` between the separators: every separator splits, so "a\n\nb" has an
// empty part between and a final "\n" is followed by one more, empty, part. Empty text has no
// parts at all. Nothing is trimmed: a "\r" before a "\n" stays at the end of its part.
std::vector<std::string_view> SplitAt(std::string_view text, char separator);

}  // namespace sluice
