// The docs of sluice's own commands: the RL.* limiters, CL.THROTTLE and the named policies
// (server/command_docs.h, INTERFACE.md sections 4 and 5).

#include "server/command_docs.h"

namespace sluice::server {
namespace {

// name, since, summary, syntax
constexpr CommandDocEntry kLimiterDocs[] = {
    {"cl.throttle", "1.0.0",
     "Decides a request against a GCRA limit as redis-cell's CL.THROTTLE does (periods in "
     "seconds).",
     "key:key max_burst:integer count:integer period:integer [quantity:integer]"},
    {"rl.fixedwindow", "1.0.0", "Counts a request against a fixed-window limit.",
     "key:key limit:integer window_ms:integer [COST cost:integer] [BLOCK milliseconds:integer]"},
    {"rl.slidinglog", "1.0.0",
     "Counts a request against an exact sliding-window limit (a log of grants).",
     "key:key limit:integer window_ms:integer [COST cost:integer] [BLOCK milliseconds:integer]"},
    {"rl.slidingwindow", "1.0.0",
     "Counts a request against a sliding-window limit estimated from two windows.",
     "key:key limit:integer window_ms:integer [COST cost:integer] [BLOCK milliseconds:integer]"},
    {"rl.tokenbucket", "1.0.0", "Takes tokens from a bucket that refills at a steady rate.",
     "key:key capacity:integer tokens:integer period_ms:integer [COST cost:integer] [BLOCK "
     "milliseconds:integer]"},
    {"rl.leakybucket", "1.0.0", "Pours a request into a funnel that drains at a steady rate.",
     "key:key capacity:integer leaks:integer period_ms:integer [COST cost:integer] [BLOCK "
     "milliseconds:integer]"},
    {"rl.gcra", "1.0.0", "Decides a request with the generic cell rate algorithm.",
     "key:key max_burst:integer count:integer period_ms:integer [COST cost:integer] [BLOCK "
     "milliseconds:integer]"},
    {"rl.smooth", "1.0.0",
     "Reserves permits from a Guava-style smooth limiter and returns the wait in ms.",
     "key:key permits_per_second:double [MAXBURST seconds:double] [WARMUP warmup_ms:integer "
     "[COLDFACTOR cold_factor:double]] [COST cost:integer] [TIMEOUT timeout_ms:integer]"},
    {"rl.policy", "1.0.0", "Defines, shows and removes named limiter policies (use a subcommand).",
     ""},
    {"rl.policy|set", "1.0.0", "Defines a named policy, or changes it keeping its keys' usage.",
     "name (FIXEDWINDOW|SLIDINGLOG|SLIDINGWINDOW|TOKENBUCKET|LEAKYBUCKET|GCRA)#algorithm "
     "argument:integer..."},
    {"rl.policy|get", "1.0.0", "Shows a policy's algorithm, arguments and counters.", "name"},
    {"rl.policy|del", "1.0.0", "Removes a named policy.", "name"},
    {"rl.policy|list", "1.0.0", "Lists the names of the policies.", ""},
    {"rl.policy|help", "1.0.0", "Lists the RL.POLICY subcommands.", ""},
    {"rl.take", "1.0.0", "Counts a request against named policies, all of them or none.",
     "key:key policy... [COST cost:integer] [BLOCK milliseconds:integer]"},
    {"rl.status", "1.0.0", "Reports named policies' state for a key without counting anything.",
     "key:key policy..."},
    {"rl.reset", "1.0.0", "Forgets a key's state under some or all policies.",
     "key:key [policy...]"},
};

}  // namespace

std::span<const CommandDocEntry> LimiterCommandDocs() { return kLimiterDocs; }

}  // namespace sluice::server
