#pragma once

// Resumable parser of client requests (RESP multibulk and inline), with the semantics and error
// texts of Redis 7.0's processMultibulkBuffer / processInlineBuffer.
//
// The caller owns the bytes. Typical loop over a connection's input buffer:
//
//   while (pos < len) {
//     size_t used = 0;
//     auto r = parser.Parse(std::string_view(buf + pos, len - pos), &used, &args);
//     if (r == Result::kNeedMore) break;   // keep buf[pos..len), append the next read to it
//     if (r == Result::kError) { reply parser.error_status(); close; }
//     pos += used;
//     if (!args.empty()) Execute(args);    // args view buf (or parser storage for inline)
//   }
//
// Deliberate differences from Redis, which cuts lines at the first NUL (strchr) and whose
// limits depend on how the bytes happened to arrive in reads:
//  - A NUL byte is an ordinary byte everywhere.
//  - Line limits depend only on the bytes, never on how they are split: an inline line longer
//    than max_line_len (without "\r\n" / "\n") is "too big inline request" even when its newline
//    is already there, and so is a '*' or '$' line longer than max_line_len (counting the '*' or
//    '$', up to its '\r'). Redis refuses such a line only while its newline has not arrived.
// As in Redis, the byte after a header's '\r' and the two bytes after a bulk are not checked.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "resp/inline_args.h"

namespace sluice::resp {

struct ParserLimits {
  uint64_t max_bulk_len = 512ull << 20;   // proto-max-bulk-len
  size_t max_line_len = 64 * 1024;        // PROTO_INLINE_MAX_SIZE
  int64_t max_multibulk_len = INT32_MAX;  // Redis: INT_MAX
};

// Redis's limits for a client that must still authenticate.
inline constexpr int64_t kUnauthMaxMultibulkLen = 10;
inline constexpr int64_t kUnauthMaxBulkLen = 16 * 1024;

class RequestParser {
 public:
  enum class Result { kOk, kNeedMore, kError };

  explicit RequestParser(ParserLimits limits = {}) : limits_(limits) {}

  void set_limits(const ParserLimits& limits) { limits_ = limits; }
  const ParserLimits& limits() const { return limits_; }

  // False while the client still has to AUTH (requirepass set): then a request may have at most
  // 10 arguments of at most 16 KB each. True by default.
  void set_authenticated(bool authenticated) { authenticated_ = authenticated; }

  // Parses one request from the front of `input`.
  //  kOk: `*consumed` is the request's length and `*args` its arguments. Multibulk arguments
  //    view `input`; inline ones may view parser storage; both stay valid until the next Parse
  //    call or until the caller drops those bytes. An empty request (empty inline line, "*0",
  //    "*-1") is kOk with no arguments: Redis skips it silently, so should the caller.
  //  kNeedMore: the request is incomplete (*consumed is 0). Call again with the same bytes
  //    followed by more; the parser keeps its progress, so nothing already parsed is scanned
  //    again (a 1M-argument request or a 500 MB bulk arriving in small reads costs linear time).
  //  kError: error() holds Redis's text; the parser stays failed until Reset().
  Result Parse(std::string_view input, size_t* consumed, std::vector<std::string_view>* args);

  const std::string& error() const { return error_; }
  // The reply for the failure: -ERR Protocol error: ...
  Status error_status() const { return Status(Code::kProtocol, error_); }

  // While a bulk is being received: how many bytes the input handed to the next Parse call must
  // hold before the request can progress (the caller may reserve up to this, within its own
  // limits). 0 while waiting for a line, whose length is unknown.
  size_t bytes_expected() const;

  // Forgets any partial request and a failure.
  void Reset();

 private:
  enum class State : uint8_t { kIdle, kInline, kCount, kBulkHeader, kBulkBody, kFailed };

  // Each works on the request that starts at req[0] and resumes at pos_. kOk: the request ends
  // at req[pos_].
  Result ParseInline(std::string_view req);
  Result ParseMultibulk(std::string_view req);
  // The fast path for the header line at pos_ (see ReadShortLength): the offset of its '\r'
  // and *value, or npos to take FindHeaderEnd and ParseLength instead.
  size_t ReadShortHeader(std::string_view req, int64_t* value) const;
  // Finds the '\r' ending the header line at pos_; kNeedMore, kError (too long) or kOk.
  Result FindHeaderEnd(std::string_view req, std::string_view too_long, size_t* cr);
  Result Fail(std::string_view message);
  void StartRequest();

  ParserLimits limits_;
  bool authenticated_ = true;

  State state_ = State::kIdle;
  size_t pos_ = 0;              // where parsing resumes, from the start of the request
  size_t scan_ = 0;             // where the search for the current line's end resumes
  int64_t remaining_ = 0;       // bulks still expected
  uint64_t bulk_len_ = 0;       // length of the bulk being received
  std::vector<ArgSpan> spans_;  // arguments: offsets into the request, or into inline_storage_
  std::string inline_storage_;
  std::string error_;
};

}  // namespace sluice::resp
