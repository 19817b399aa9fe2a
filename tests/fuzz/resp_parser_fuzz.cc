// libFuzzer target: the RESP request parser (resp::RequestParser).
//
// Input: byte 0 picks the limits (small or default) and whether the client is authenticated,
// byte 1 seeds the split sizes, the rest is the byte stream a client sends. The stream is
// parsed three times, in a buffer that drops consumed requests and moves a partial one to the
// front: once in one piece, once in chunks of pseudo-random sizes, and once more in chunks as
// the Session does it, batches parsed ahead (resp::RequestBatch) then a request alone. Besides
// not crashing, all three must yield the same requests and the same outcome, every `consumed`
// and every batched request's end must lie within the input, a parser that asks for more bytes
// must not claim it needs fewer than it has, and before AUTH a multibulk request has at most 10
// arguments of at most 16 KB.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "resp/request_batch.h"
#include "resp/request_parser.h"

namespace {

using sluice::resp::ParserLimits;
using sluice::resp::RequestBatch;
using sluice::resp::RequestParser;

struct Outcome {
  std::vector<std::vector<std::string>> requests;
  std::string error;  // empty: no protocol error
  bool operator==(const Outcome& other) const {
    return requests == other.requests && error == other.error;
  }
};

// Fails the run with the condition's text (libFuzzer saves the input).
#define CHECK(condition)                                                                 \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

uint32_t NextRandom(uint32_t* seed) {
  *seed ^= *seed << 13;
  *seed ^= *seed >> 17;
  *seed ^= *seed << 5;
  return *seed;
}

// Records a parsed request, checking the limits it was parsed under.
void Record(std::span<const std::string_view> args, const ParserLimits& limits,
            bool authenticated, bool multibulk, Outcome* outcome) {
  if (!authenticated && multibulk) CHECK(args.size() <= 10);
  if (args.empty()) return;
  std::vector<std::string> request;
  for (std::string_view arg : args) {
    if (!authenticated && multibulk) CHECK(arg.size() <= 16 * 1024);
    CHECK(arg.size() <= limits.max_bulk_len || arg.size() <= limits.max_line_len);
    request.emplace_back(arg);
  }
  outcome->requests.push_back(std::move(request));
}

// Feeds `stream` in chunks whose sizes come from `next_chunk`. With `batch_seed`, each buffer
// is parsed as the Session does it: a RequestBatch of complete requests first (of a random
// size, sometimes left before its end, as when a client's output fills up), then the next
// request alone.
template <typename NextChunk>
Outcome ParseStream(std::string_view stream, const ParserLimits& limits, bool authenticated,
                    NextChunk next_chunk, std::optional<uint32_t> batch_seed = std::nullopt) {
  Outcome outcome;
  RequestParser parser(limits);
  parser.set_authenticated(authenticated);
  RequestBatch batch;
  std::string buffer;
  std::vector<std::string_view> args;
  size_t fed = 0;
  while (fed < stream.size()) {
    size_t chunk = std::min(next_chunk(), stream.size() - fed);
    buffer.append(stream.substr(fed, chunk));
    fed += chunk;
    size_t pos = 0;
    while (pos < buffer.size()) {
      if (batch_seed) {
        batch.Parse(parser, std::string_view(buffer).substr(pos),
                    NextRandom(&*batch_seed) % 5 + 1);
        if (batch.size() > 0) {
          const size_t start = pos;
          const size_t run = NextRandom(&*batch_seed) % 4 == 0
                                 ? NextRandom(&*batch_seed) % batch.size()
                                 : batch.size();
          for (size_t i = 0; i < run; ++i) {
            CHECK(batch.end(i) > (i == 0 ? 0 : batch.end(i - 1)));
            CHECK(batch.end(i) <= buffer.size() - start);
            pos = start + batch.end(i);
            Record(batch.args(i), limits, authenticated, true, &outcome);
          }
          if (run < batch.size()) parser.Reset();  // the rest is parsed again
          continue;
        }
      }
      size_t consumed = 0;
      // Redis limits only multibulk requests before AUTH; an inline line is bounded by its
      // 64 KB alone (a request resumed mid-way started with the same byte at the front).
      const bool multibulk = buffer[pos] == '*';
      auto result = parser.Parse(std::string_view(buffer).substr(pos), &consumed, &args);
      if (result == RequestParser::Result::kNeedMore) {
        CHECK(consumed == 0);
        size_t expected = parser.bytes_expected();
        CHECK(expected == 0 || expected > buffer.size() - pos);
        break;
      }
      if (result == RequestParser::Result::kError) {
        CHECK(!parser.error().empty());
        outcome.error = parser.error();
        return outcome;
      }
      CHECK(consumed > 0 && consumed <= buffer.size() - pos);
      pos += consumed;
      Record(args, limits, authenticated, multibulk, &outcome);
    }
    buffer.erase(0, pos);  // the session's memmove of a partial request to the front
  }
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t flags = data[0];
  uint32_t seed = data[1] | 1u;
  std::string_view stream(reinterpret_cast<const char*>(data + 2), size - 2);

  ParserLimits limits;
  if (flags & 1) {  // small limits, so the fuzzer reaches them
    limits.max_bulk_len = 40;
    limits.max_line_len = 24;
    limits.max_multibulk_len = 6;
  }
  const bool authenticated = (flags & 2) == 0;

  Outcome whole = ParseStream(stream, limits, authenticated, [] { return SIZE_MAX; });
  auto random_chunks = [&seed] {
    const uint32_t r = NextRandom(&seed);
    return static_cast<size_t>(r % 7 == 0 ? 1 : r % 19 + 1);
  };
  Outcome split = ParseStream(stream, limits, authenticated, random_chunks);
  CHECK(whole == split);
  Outcome batched = ParseStream(stream, limits, authenticated, random_chunks, seed);
  CHECK(whole == batched);
  return 0;
}
