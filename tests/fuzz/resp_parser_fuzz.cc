// libFuzzer target: the RESP request parser (resp::RequestParser).
//
// Input: byte 0 picks the limits (small or default) and whether the client is authenticated,
// byte 1 seeds the split sizes, the rest is the byte stream a client sends. The stream is
// parsed twice, as a Session does it (a buffer that drops consumed requests and moves a partial
// one to the front): once in one piece, once in chunks of pseudo-random sizes. Besides not
// crashing, both must yield the same requests and the same outcome, every `consumed` must lie
// within the input, a parser that asks for more bytes must not claim it needs fewer than it
// has, and before AUTH a multibulk request has at most 10 arguments of at most 16 KB.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "resp/request_parser.h"

namespace {

using sluice::resp::ParserLimits;
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

// Feeds `stream` in chunks whose sizes come from `next_chunk`.
template <typename NextChunk>
Outcome ParseStream(std::string_view stream, const ParserLimits& limits, bool authenticated,
                    NextChunk next_chunk) {
  Outcome outcome;
  RequestParser parser(limits);
  parser.set_authenticated(authenticated);
  std::string buffer;
  std::vector<std::string_view> args;
  size_t fed = 0;
  while (fed < stream.size()) {
    size_t chunk = std::min(next_chunk(), stream.size() - fed);
    buffer.append(stream.substr(fed, chunk));
    fed += chunk;
    size_t pos = 0;
    while (pos < buffer.size()) {
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
      if (!authenticated && multibulk) CHECK(args.size() <= 10);
      if (args.empty()) continue;
      std::vector<std::string> request;
      for (std::string_view arg : args) {
        if (!authenticated && multibulk) CHECK(arg.size() <= 16 * 1024);
        CHECK(arg.size() <= limits.max_bulk_len || arg.size() <= limits.max_line_len);
        request.emplace_back(arg);
      }
      outcome.requests.push_back(std::move(request));
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
  Outcome split = ParseStream(stream, limits, authenticated, [&seed] {
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    return static_cast<size_t>(seed % 7 == 0 ? 1 : seed % 19 + 1);
  });
  CHECK(whole == split);
  return 0;
}
