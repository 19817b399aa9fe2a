#pragma once

// The one mapping from a Status code to the RESP error line (the text after '-'). Every error
// reply, from handlers, the dispatcher or Lua, goes through here so prefixes cannot drift.

#include <string>
#include <string_view>

#include "common/status.h"

namespace sluice::resp {

// "ERR", "WRONGTYPE", ... ; empty for Code::kRaw, whose message carries its own prefix.
std::string_view ErrorPrefix(Code code);

// Appends the error line of `status`, e.g. "ERR syntax error", with CR and LF in the message
// replaced by spaces (as Redis's addReplyErrorLength does), so a reply never breaks framing.
void AppendErrorLine(const Status& status, std::string* out);

std::string ErrorLine(const Status& status);

}  // namespace sluice::resp
