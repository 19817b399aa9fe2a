#pragma once

namespace sluice::scripting {

// Which of Redis's two Lua environments an engine gives: EVAL's, or FUNCTION's, whose `redis`
// table has no breakpoint, debug or replicate_commands and whose globals no
// __redis__err__handler (Redis sets those up for EVAL only).
enum class ScriptApi { kEval, kFunctions };

}  // namespace sluice::scripting
