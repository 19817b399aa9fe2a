#include "resp/request_parser.h"

#include <algorithm>
#include <charconv>

#include "resp/error_messages.h"
#include "resp/short_length.h"

namespace sluice::resp {
namespace {

using Result = RequestParser::Result;

// Redis's string2ll: optional '-', no '+', no leading zeros or blanks, at most 20 characters,
// within int64.
bool ParseLength(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  if (s == "0") {
    *out = 0;
    return true;
  }
  const size_t first_digit = s[0] == '-' ? 1 : 0;
  if (first_digit >= s.size() || s[first_digit] < '1' || s[first_digit] > '9') return false;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

// argv is allocated as data arrives, not from a client's claim (Redis caps its first argv too).
constexpr int64_t kInitialArgCapacity = 1024;
// A parser that once held a huge request gives the memory back before the next one.
constexpr size_t kMaxKeptArgCapacity = 64 * 1024;
constexpr size_t kMaxKeptInlineStorage = 64 * 1024;

}  // namespace

Result RequestParser::Parse(std::string_view input, size_t* consumed,
                            std::vector<std::string_view>* args) {
  *consumed = 0;
  args->clear();
  if (state_ == State::kFailed) return Result::kError;
  if (state_ == State::kIdle) {
    if (input.empty()) return Result::kNeedMore;
    StartRequest();
    state_ = input[0] == '*' ? State::kCount : State::kInline;
  }
  const bool is_inline = state_ == State::kInline;
  const Result result = is_inline ? ParseInline(input) : ParseMultibulk(input);
  if (result != Result::kOk) return result;

  state_ = State::kIdle;
  const std::string_view source = is_inline ? std::string_view(inline_storage_) : input;
  args->reserve(spans_.size());
  for (const ArgSpan& span : spans_) args->push_back(source.substr(span.offset, span.length));
  *consumed = pos_;
  return Result::kOk;
}

Result RequestParser::ParseInline(std::string_view req) {
  const size_t newline = req.find('\n', scan_);
  if (newline == std::string_view::npos) {
    scan_ = req.size();
    // A trailing '\r' may still become part of the line's "\r\n".
    size_t line_len = req.size();
    if (line_len > 0 && req[line_len - 1] == '\r') --line_len;
    if (line_len > limits_.max_line_len) return Fail(kProtoTooBigInline);
    return Result::kNeedMore;
  }
  size_t line_end = newline;
  if (line_end > 0 && req[line_end - 1] == '\r') --line_end;
  if (line_end > limits_.max_line_len) return Fail(kProtoTooBigInline);
  if (!SplitInlineArgs(req.substr(0, line_end), &inline_storage_, &spans_)) {
    return Fail(kProtoUnbalancedQuotes);
  }
  pos_ = newline + 1;
  return Result::kOk;
}

size_t RequestParser::ReadShortHeader(std::string_view req, int64_t* value) const {
  const size_t cr = ReadShortLength(req, pos_ + 1, value);
  // A header longer than the line limit takes the general path, which refuses it.
  if (cr != std::string_view::npos && cr - pos_ > limits_.max_line_len) {
    return std::string_view::npos;
  }
  return cr;
}

Result RequestParser::FindHeaderEnd(std::string_view req, std::string_view too_long, size_t* cr) {
  const size_t found = req.find('\r', scan_);
  if (found == std::string_view::npos) {
    scan_ = req.size();
    if (req.size() - pos_ > limits_.max_line_len) return Fail(too_long);
    return Result::kNeedMore;
  }
  scan_ = found;
  if (found - pos_ > limits_.max_line_len) return Fail(too_long);
  if (found + 2 > req.size()) return Result::kNeedMore;  // the byte after '\r' is still missing
  *cr = found;
  return Result::kOk;
}

Result RequestParser::ParseMultibulk(std::string_view req) {
  if (req.size() < pos_) return Result::kNeedMore;  // caller broke the contract; do no harm
  if (state_ == State::kCount) {
    int64_t count = 0;
    size_t cr = ReadShortHeader(req, &count);
    if (cr == std::string_view::npos) {
      if (Result r = FindHeaderEnd(req, kProtoTooBigMbulkCount, &cr); r != Result::kOk) return r;
      if (!ParseLength(req.substr(1, cr - 1), &count)) return Fail(kProtoInvalidMultibulkLen);
    }
    if (count > limits_.max_multibulk_len) return Fail(kProtoInvalidMultibulkLen);
    if (!authenticated_ && count > kUnauthMaxMultibulkLen) return Fail(kProtoUnauthMultibulkLen);
    pos_ = cr + 2;
    scan_ = pos_;
    if (count <= 0) return Result::kOk;
    remaining_ = count;
    spans_.reserve(static_cast<size_t>(std::min(count, kInitialArgCapacity)));
    state_ = State::kBulkHeader;
  }

  while (remaining_ > 0) {
    if (state_ == State::kBulkHeader) {
      int64_t len = 0;
      size_t cr = pos_ < req.size() && req[pos_] == '$' ? ReadShortHeader(req, &len)
                                                        : std::string_view::npos;
      if (cr == std::string_view::npos) {
        if (Result r = FindHeaderEnd(req, kProtoTooBigBulkCount, &cr); r != Result::kOk) return r;
        if (req[pos_] != '$') return Fail(ProtoExpectedDollar(req[pos_]));
        if (!ParseLength(req.substr(pos_ + 1, cr - pos_ - 1), &len) || len < 0) {
          return Fail(kProtoInvalidBulkLen);
        }
      }
      if (static_cast<uint64_t>(len) > limits_.max_bulk_len) return Fail(kProtoInvalidBulkLen);
      if (!authenticated_ && len > kUnauthMaxBulkLen) return Fail(kProtoUnauthBulkLen);
      bulk_len_ = static_cast<uint64_t>(len);
      pos_ = cr + 2;
      state_ = State::kBulkBody;
    }
    // The body and its two trailing bytes, which Redis skips without looking at them.
    if (req.size() - pos_ < bulk_len_ + 2) return Result::kNeedMore;
    spans_.push_back({pos_, static_cast<size_t>(bulk_len_)});
    pos_ += static_cast<size_t>(bulk_len_) + 2;
    scan_ = pos_;
    --remaining_;
    state_ = State::kBulkHeader;
  }
  return Result::kOk;
}

size_t RequestParser::bytes_expected() const {
  return state_ == State::kBulkBody ? pos_ + static_cast<size_t>(bulk_len_) + 2 : 0;
}

Result RequestParser::Fail(std::string_view message) {
  error_.assign(message);
  state_ = State::kFailed;
  return Result::kError;
}

void RequestParser::StartRequest() {
  pos_ = 0;
  scan_ = 0;
  remaining_ = 0;
  bulk_len_ = 0;
  if (spans_.capacity() > kMaxKeptArgCapacity) {
    std::vector<ArgSpan>().swap(spans_);
  } else {
    spans_.clear();
  }
  if (inline_storage_.capacity() > kMaxKeptInlineStorage) {
    std::string().swap(inline_storage_);
  } else {
    inline_storage_.clear();
  }
}

void RequestParser::Reset() {
  StartRequest();
  state_ = State::kIdle;
  error_.clear();
}

}  // namespace sluice::resp
