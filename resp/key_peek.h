#pragma once

// A quick look ahead over pipelined requests, for prefetching: before a batch is executed
// one request at a time, the keys it is about to look up can be loaded into the CPU cache
// together, so their memory latencies overlap instead of adding up.

#include <cstddef>
#include <span>
#include <string_view>

namespace sluice::resp {

// Stores in `out` the first key of each of the first out.size() requests at the front of
// `input` (complete multibulk requests), in order; returns how many. The first key is taken
// to be args[1], as for most commands, or args[3] for EVAL, EVALSHA, FCALL and their _RO forms
// (after the script and numkeys) when numkeys is not 0; a request without one is skipped. A
// hint, never a parse: it stops at the first thing it does not expect (an inline request, a
// malformed header, an incomplete request) and checks no limit. The views point into `input`.
size_t PeekKeys(std::string_view input, std::span<std::string_view> out);

}  // namespace sluice::resp
