#pragma once

// A ReplyBuilder that records replies as Value trees instead of bytes: the Lua bridge reads
// what a command replied, and tests compare trees. Replay() writes a tree through any builder.

#include <vector>

#include "resp/reply_builder.h"
#include "resp/value.h"

namespace sluice::resp {

class CapturingReplyBuilder final : public ReplyBuilder {
 public:
  explicit CapturingReplyBuilder(ProtocolVersion version = ProtocolVersion::kResp2)
      : version_(version) {}

  ProtocolVersion protocol() const override { return version_; }
  void set_protocol(ProtocolVersion version) override { version_ = version; }

  using ReplyBuilder::Error;
  void Simple(std::string_view s) override;
  void Error(const Status& status) override;  // kError with str = ErrorLine(status)
  void Int(int64_t v) override;
  void Bulk(std::string_view s) override;
  void Null() override;
  void NullArray() override;
  // The next n values (2n for Map) fill the aggregate; a negative n is a null array, as in
  // RespWriter.
  void Array(int64_t n) override;
  void Map(int64_t n) override;
  void Set(int64_t n) override;
  void Push(int64_t n) override;  // captured as an array (SUBSCRIBE never runs in a script)
  void Double(double d) override;
  void Bool(bool b) override;
  void Verbatim(std::string_view s) override;

  // True when at least one top-level value is finished and no aggregate is still open.
  bool complete() const { return open_.empty() && !done_.empty(); }
  // Finished top-level values not yet taken.
  size_t size() const { return done_.size(); }

  // Removes and returns the first finished top-level value (a Null value if there is none).
  Value Take();
  // Removes and returns every finished top-level value, in order.
  std::vector<Value> TakeAll();
  // Forgets every value, finished or open; the buffers stay for the next ones.
  void Clear();

 private:
  struct Open {
    Value* value;       // the aggregate being filled
    int64_t remaining;  // values it still expects
  };

  void Add(Value v);
  void OpenAggregate(Value::Kind kind, int64_t n, int64_t values);

  ProtocolVersion version_;
  Value root_;              // the top-level aggregate being filled, if open_ is not empty
  std::vector<Open> open_;  // innermost last; each points into its parent's last element
  // A vector, not a deque: a script's redis.call captures one reply per builder, and a
  // deque allocates two blocks before its first value.
  std::vector<Value> done_;
};

// Writes `value` through `out`: replaying a captured tree produces what writing the original
// calls would have (errors are replayed as Code::kRaw with the captured line).
void Replay(const Value& value, ReplyBuilder& out);

}  // namespace sluice::resp
