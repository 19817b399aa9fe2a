#pragma once

// The complete requests at the front of a client's input, parsed before any of them runs: the
// keys a pipelined batch is about to look up can then be loaded into the CPU cache together,
// so their memory latencies overlap instead of adding up, and each request is still parsed
// only once.
//
//   batch.Parse(parser, input, 32);
//   engine.Prefetch(batch.FirstKeys(...));
//   for (size_t i = 0; i < batch.size(); ++i) Execute(batch.args(i));  // ends at batch.end(i)
//
// Parsing ahead is only right while nothing a request does changes how the next ones parse
// (AUTH, CONFIG SET proto-max-bulk-len): after such a request the caller drops the rest of the
// batch and calls parser.Reset() before parsing again from where it is.

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "resp/request_parser.h"

namespace sluice::resp {

class RequestBatch {
 public:
  // Parses up to `max_requests` requests from the front of `input`, forgetting the previous
  // batch. Stops before an inline request and at one that is incomplete or malformed: the
  // caller parses that one alone, and the parser gives the same answer again (it keeps its
  // progress on an incomplete request and stays failed on a malformed one).
  void Parse(RequestParser& parser, std::string_view input, size_t max_requests);

  size_t size() const { return requests_.size(); }
  // Request i's arguments (views into the input; none for an empty request such as "*0").
  std::span<const std::string_view> args(size_t i) const {
    const Request& r = requests_[i];
    return std::span(args_).subspan(r.first_arg, r.arg_count);
  }
  // The offset in the input just past request i.
  size_t end(size_t i) const { return requests_[i].end; }

  // Stores in `out` the first key of each request that has one, in order, at most out.size();
  // returns how many. A hint for prefetching, never used to execute.
  size_t FirstKeys(std::span<std::string_view> out) const;

 private:
  struct Request {
    size_t end;
    size_t first_arg;
    size_t arg_count;
  };
  std::vector<Request> requests_;
  std::vector<std::string_view> args_;     // every request's arguments, one after another
  std::vector<std::string_view> scratch_;  // one request's, as the parser returns them
};

// The first key a parsed request looks up: args[1], as for most commands, or args[3] for EVAL,
// EVALSHA, FCALL and their _RO forms (after the script and numkeys) when numkeys is not 0.
std::optional<std::string_view> FirstKeyHint(std::span<const std::string_view> args);

}  // namespace sluice::resp
