#include "resp/resp_writer.h"

#include <cstdint>

#include "resp/error_prefix.h"
#include "resp/number_format.h"

namespace sluice::resp {
namespace {

constexpr std::string_view kCrlf = "\r\n";

// A simple string's line holds no CR or LF: they become spaces.
char LineSafe(char c) { return c == '\r' || c == '\n' ? ' ' : c; }

// The longest line PutLine writes: type, digits, CRLF.
constexpr size_t kMaxLine = 1 + kNumberBufferSize + 2;

// Writes "<type><n>\r\n" at `at` (kMaxLine bytes free) and returns the end.
char* PutLine(char type, int64_t n, char* at) {
  *at++ = type;
  at += FormatInt(n, at).size();
  *at++ = '\r';
  *at++ = '\n';
  return at;
}

}  // namespace

void RespWriter::Header(char type, int64_t n) {
  char buf[kMaxLine];
  out_->append(buf, PutLine(type, n, buf) - buf);
}

void RespWriter::IntArray(std::span<const int64_t> values) {
  constexpr size_t kMaxOnStack = 8;
  if (values.size() > kMaxOnStack) {
    ReplyBuilder::IntArray(values);
    return;
  }
  char buf[kMaxLine * (kMaxOnStack + 1)];
  char* end = PutLine('*', static_cast<int64_t>(values.size()), buf);
  for (int64_t v : values) end = PutLine(':', v, end);
  out_->append(buf, end - buf);
}

void RespWriter::Simple(std::string_view s) {
  // +OK and +PONG end most commands: one append of the whole line, built on the stack.
  constexpr size_t kShort = 32;
  if (s.size() <= kShort) {
    char line[1 + kShort + 2];
    line[0] = '+';
    for (size_t i = 0; i < s.size(); ++i) line[1 + i] = LineSafe(s[i]);
    line[1 + s.size()] = '\r';
    line[2 + s.size()] = '\n';
    out_->append(line, s.size() + 3);
    return;
  }
  out_->push_back('+');
  const size_t start = out_->size();
  out_->append(s);
  for (size_t i = start; i < out_->size(); ++i) (*out_)[i] = LineSafe((*out_)[i]);
  out_->append(kCrlf);
}

void RespWriter::Error(const Status& status) {
  out_->push_back('-');
  AppendErrorLine(status, out_);
  out_->append(kCrlf);
}

void RespWriter::Int(int64_t v) { Header(':', v); }

void RespWriter::Bulk(std::string_view s) {
  Header('$', static_cast<int64_t>(s.size()));
  out_->append(s);
  out_->append(kCrlf);
}

void RespWriter::Null() { out_->append(resp3() ? "_\r\n" : "$-1\r\n"); }

void RespWriter::NullArray() { out_->append(resp3() ? "_\r\n" : "*-1\r\n"); }

void RespWriter::Aggregate(char resp3_type, int64_t n, int64_t resp2_count) {
  if (n < 0) {
    NullArray();
  } else if (resp3()) {
    Header(resp3_type, n);
  } else {
    Header('*', resp2_count);
  }
}

void RespWriter::Array(int64_t n) { Aggregate('*', n, n); }

void RespWriter::Map(int64_t n) {
  // A count this large is a caller bug; saturate rather than overflow.
  int64_t flat = n > INT64_MAX / 2 ? INT64_MAX : n * 2;
  Aggregate('%', n, flat);
}

void RespWriter::Set(int64_t n) { Aggregate('~', n, n); }

void RespWriter::Push(int64_t n) { Aggregate('>', n, n); }

void RespWriter::Double(double d) {
  char buf[kNumberBufferSize];
  DoubleText(d, FormatDouble(d, buf));
}

void RespWriter::DoubleText(double, std::string_view text) {
  if (resp3()) {
    out_->push_back(',');
    out_->append(text);
    out_->append(kCrlf);
  } else {
    Bulk(text);
  }
}

void RespWriter::Bool(bool b) {
  if (resp3()) {
    out_->append(b ? "#t\r\n" : "#f\r\n");
  } else {
    out_->append(b ? ":1\r\n" : ":0\r\n");
  }
}

void RespWriter::Verbatim(std::string_view s) {
  if (!resp3()) {
    Bulk(s);
    return;
  }
  constexpr std::string_view kFormat = "txt:";
  Header('=', static_cast<int64_t>(s.size() + kFormat.size()));
  out_->append(kFormat);
  out_->append(s);
  out_->append(kCrlf);
}

}  // namespace sluice::resp
