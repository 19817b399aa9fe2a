#pragma once

// What HRANDFIELD and ZRANDMEMBER share: their arguments, the generator of their samples, the
// bound on a negative count, and the reply's shape.

#include <cstdint>
#include <functional>
#include <random>
#include <string_view>

#include "common/status.h"
#include "server/command_context.h"

namespace sluice::server {

struct RandomArgs {
  bool has_count = false;
  int64_t count = 0;
  bool with_values = false;  // WITHVALUES (HRANDFIELD) or WITHSCORES (ZRANDMEMBER)
};

// Redis 7.0's order: the count (in [-LONG_MAX, LONG_MAX]), then the option named `option`,
// then with it a count within +-LONG_MAX/2 (Redis doubles it for RESP2's flat reply). All
// before the key is looked up.
StatusOr<RandomArgs> ParseRandomArgs(Args args, std::string_view option);

// The generator of the samples, seeded once from std::random_device (seeding one per command
// costs more than the command). Commands run on the loop thread only.
std::mt19937_64& SampleRng();

// Redis 7.0 builds a negative count's reply whatever its size: -LONG_MAX never ends and takes
// all the memory there is. sluice refuses a count whose reply could not be sent anyway (past
// client-output-buffer-limit's hard limit), with the text Redis gives past +-LONG_MAX/2; a
// missing key still answers an empty array and another type WRONGTYPE, from `size` (the key's
// element count, or its lookup error). True when it has replied.
bool ReplyIfTooManyRepeats(CommandContext& ctx, const RandomArgs& args,
                           const std::function<StatusOr<uint64_t>()>& size);

// The reply, as Redis 7.0: without a count one bulk (nil when `picks` is 0); with one an array,
// names and values flat in RESP2 and [name, value] pairs in RESP3 when with_values.
// `reply_pick(i, with_value)` replies pick i's name, then its value when asked.
void ReplySample(CommandContext& ctx, const RandomArgs& args, size_t picks,
                 const std::function<void(size_t, bool)>& reply_pick);

}  // namespace sluice::server
