#pragma once

// ReplyBuilder that appends RESP2 or RESP3 bytes, exactly as Redis 7.0 encodes them, to a
// caller-owned buffer (the session's output buffer), so a pipelined batch becomes one write.

#include <string>

#include "resp/reply_builder.h"

namespace sluice::resp {

class RespWriter final : public ReplyBuilder {
 public:
  explicit RespWriter(std::string* out, ProtocolVersion version = ProtocolVersion::kResp2)
      : out_(out), version_(version) {}

  ProtocolVersion protocol() const override { return version_; }
  void set_protocol(ProtocolVersion version) override { version_ = version; }
  void set_output(std::string* out) { out_ = out; }
  std::string* output() const { return out_; }

  using ReplyBuilder::Error;
  // CR and LF become spaces: a status line cannot carry them and Redis would break framing.
  void Simple(std::string_view s) override;
  void Error(const Status& status) override;
  void Int(int64_t v) override;
  void Bulk(std::string_view s) override;
  void Null() override;
  void NullArray() override;
  // A negative count is a null array, as Redis's *-1.
  void Array(int64_t n) override;
  void Map(int64_t n) override;
  void Set(int64_t n) override;
  void Push(int64_t n) override;
  void Double(double d) override;
  void DoubleText(double d, std::string_view text) override;
  void Bool(bool b) override;
  void Verbatim(std::string_view s) override;
  void IntArray(std::span<const int64_t> values) override;

 private:
  bool resp3() const { return version_ == ProtocolVersion::kResp3; }
  void Header(char type, int64_t n);  // e.g. "*3\r\n"
  void Aggregate(char resp3_type, int64_t n, int64_t resp2_count);

  std::string* out_;
  ProtocolVersion version_;
};

}  // namespace sluice::resp
