#pragma once

// Drives a RequestParser over a byte stream cut into pieces, the way a session does: each call
// sees the unconsumed bytes plus everything that has arrived so far. Works on views of one
// stream (no copying), so a 1 MB stream can be tried at every split point.

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "resp/request_parser.h"

namespace sluice::resp::harness {

// One parsed argument as the tests compare it. Arguments that view the stream are identified
// by their place in it (which also proves zero copy); others (inline) by their bytes. Large
// arguments are compared by place only, so the every-split tests stay linear.
struct Arg {
  std::ptrdiff_t offset = -1;  // into the stream, or -1 if the bytes live elsewhere
  size_t size = 0;
  std::string bytes;  // empty for large stream arguments
  bool operator==(const Arg&) const = default;
};

struct Outcome {
  std::vector<std::vector<Arg>> commands;  // empty requests are not recorded
  size_t empty_requests = 0;
  RequestParser::Result last = RequestParser::Result::kNeedMore;
  std::string error;
  size_t unconsumed = 0;  // bytes left over at the end
  bool operator==(const Outcome&) const = default;
};

// Short, readable summaries for assertion failures (a dump of bytes would be useless).
inline void PrintTo(const Outcome& o, std::ostream* os) {
  static constexpr const char* kResults[] = {"kOk", "kNeedMore", "kError"};
  *os << "{last=" << kResults[static_cast<int>(o.last)] << " error=\"" << o.error
      << "\" unconsumed=" << o.unconsumed << " empty=" << o.empty_requests
      << " commands=" << o.commands.size() << ":";
  for (size_t i = 0; i < o.commands.size() && i < 8; ++i) {
    *os << " [";
    for (const Arg& a : o.commands[i]) {
      *os << " @" << a.offset << "/" << a.size << "'" << a.bytes.substr(0, 16) << "'";
    }
    *os << " ]";
  }
  *os << "}";
}

inline Arg Record(std::string_view arg, std::string_view stream) {
  constexpr size_t kCompareBytesUpTo = 4096;
  Arg out;
  out.size = arg.size();
  const char* begin = stream.data();
  const char* end = begin + stream.size();
  if (arg.data() >= begin && arg.data() + arg.size() <= end && !arg.empty()) {
    out.offset = arg.data() - begin;
  }
  if (out.offset < 0 || arg.size() <= kCompareBytesUpTo) out.bytes.assign(arg);
  return out;
}

// Feeds stream[0, cuts[0]), then up to cuts[1], ... and finally the whole stream. Cuts must be
// ascending.
inline Outcome Feed(std::string_view stream, const std::vector<size_t>& cuts,
                    const ParserLimits& limits = {}, bool authenticated = true) {
  RequestParser parser(limits);
  parser.set_authenticated(authenticated);
  Outcome out;
  std::vector<std::string_view> args;
  size_t pos = 0;  // first unconsumed byte
  std::vector<size_t> ends = cuts;
  ends.push_back(stream.size());
  for (size_t end : ends) {
    while (pos < end) {
      size_t used = 12345;  // must be overwritten
      out.last = parser.Parse(stream.substr(pos, end - pos), &used, &args);
      if (out.last == RequestParser::Result::kError) {
        out.error = parser.error();
        out.unconsumed = stream.size() - pos;
        return out;
      }
      if (out.last == RequestParser::Result::kNeedMore) {
        if (used != 0) out.error = "kNeedMore with consumed != 0";
        break;
      }
      if (used == 0 || used > end - pos) {
        out.error = "bad consumed count";
        return out;
      }
      pos += used;
      if (args.empty()) {
        ++out.empty_requests;
        continue;
      }
      std::vector<Arg> command;
      for (std::string_view a : args) command.push_back(Record(a, stream));
      out.commands.push_back(std::move(command));
    }
  }
  out.unconsumed = stream.size() - pos;
  return out;
}

inline std::vector<std::vector<std::string>> Strings(const Outcome& outcome,
                                                     std::string_view stream) {
  std::vector<std::vector<std::string>> result;
  for (const auto& command : outcome.commands) {
    std::vector<std::string> strings;
    for (const Arg& a : command) {
      strings.push_back(a.offset >= 0 ? std::string(stream.substr(a.offset, a.size)) : a.bytes);
    }
    result.push_back(std::move(strings));
  }
  return result;
}

}  // namespace sluice::resp::harness
