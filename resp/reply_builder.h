#pragma once

// Handlers never format RESP bytes: they describe a reply through this interface.
// RespWriter (resp/resp_writer.h) turns it into RESP2 or RESP3 bytes for a connection;
// CapturingReplyBuilder (resp/capturing_builder.h) keeps a value tree for Lua and tests.

#include <cstdint>
#include <span>
#include <string_view>

#include "common/status.h"

namespace sluice::resp {

enum class ProtocolVersion : uint8_t { kResp2 = 2, kResp3 = 3 };

class ReplyBuilder {
 public:
  virtual ~ReplyBuilder() = default;

  virtual ProtocolVersion protocol() const = 0;
  // HELLO switches a connection's protocol; its own reply already uses the new one.
  virtual void set_protocol(ProtocolVersion) {}

  virtual void Simple(std::string_view s) = 0;      // +OK
  virtual void Error(const Status& status) = 0;     // -PREFIX message (see error_prefix.h)
  virtual void Int(int64_t v) = 0;                  // :42
  virtual void Bulk(std::string_view s) = 0;        // $3 foo
  virtual void Null() = 0;                          // RESP2 $-1, RESP3 _
  virtual void NullArray() = 0;                     // RESP2 *-1, RESP3 _
  virtual void Array(int64_t n) = 0;                // n elements follow
  virtual void Map(int64_t n) = 0;                  // n key/value pairs follow (RESP2: array of 2n)
  virtual void Set(int64_t n) = 0;                  // RESP2: array
  virtual void Push(int64_t n) = 0;                 // RESP3 >n (pub/sub)  RESP2: array
  virtual void Double(double d) = 0;                // RESP3 ,d  RESP2 bulk "%.17g" as Redis 7.0
  virtual void Bool(bool b) = 0;                    // RESP3 #t  RESP2 :1 / :0
  virtual void Verbatim(std::string_view s) = 0;    // RESP3 =txt:...  RESP2 bulk
  // A double with the text the command formats it with (GEOPOS's coordinates: Redis's
  // addReplyHumanLongDouble): RESP3 ,text  RESP2 bulk text. A capture keeps the double.
  virtual void DoubleText(double d, std::string_view text) {
    if (protocol() == ProtocolVersion::kResp3) {
      Double(d);
    } else {
      Bulk(text);
    }
  }

  // An array of integers (a limiter's verdict, CL.THROTTLE's reply), so that a writer can
  // emit it whole rather than a call per element.
  virtual void IntArray(std::span<const int64_t> values) {
    Array(static_cast<int64_t>(values.size()));
    for (int64_t v : values) Int(v);
  }

  void Ok() { Simple("OK"); }
  void Error(Code code, std::string_view message) { Error(Status(code, std::string(message))); }
};

}  // namespace sluice::resp
