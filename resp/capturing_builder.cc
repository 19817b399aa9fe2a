#include "resp/capturing_builder.h"

#include <algorithm>
#include <cstdint>

#include "resp/error_prefix.h"

namespace sluice::resp {
namespace {

// Aggregates are sized from the caller's count, but never reserve much up front for it.
constexpr int64_t kMaxReserve = 1024;

}  // namespace

void CapturingReplyBuilder::Add(Value v) {
  if (open_.empty()) {
    done_.push_back(std::move(v));
    return;
  }
  Open& top = open_.back();
  top.value->elements.push_back(std::move(v));
  --top.remaining;
  // Closing an aggregate adds one value to its parent, which may close it in turn.
  while (!open_.empty() && open_.back().remaining == 0) {
    open_.pop_back();
    if (open_.empty()) {
      done_.push_back(std::move(root_));
      root_ = Value();
    }
  }
}

void CapturingReplyBuilder::OpenAggregate(Value::Kind kind, int64_t n, int64_t values) {
  if (n < 0) {
    NullArray();
    return;
  }
  Value v;
  v.kind = kind;
  v.elements.reserve(static_cast<size_t>(std::min(values, kMaxReserve)));
  if (values == 0) {
    Add(std::move(v));
    return;
  }
  Value* slot;
  if (open_.empty()) {
    root_ = std::move(v);
    slot = &root_;
  } else {
    // The parent's vector is not touched again until this child closes, so the pointer holds.
    Open& parent = open_.back();
    parent.value->elements.push_back(std::move(v));
    --parent.remaining;
    slot = &parent.value->elements.back();
  }
  open_.push_back({slot, values});
}

void CapturingReplyBuilder::Simple(std::string_view s) { Add(Value::Simple(s)); }
void CapturingReplyBuilder::Error(const Status& status) { Add(Value::Error(ErrorLine(status))); }
void CapturingReplyBuilder::Int(int64_t v) { Add(Value::Int(v)); }
void CapturingReplyBuilder::Bulk(std::string_view s) { Add(Value::Bulk(s)); }
void CapturingReplyBuilder::Null() { Add(Value::Null()); }
void CapturingReplyBuilder::NullArray() { Add(Value::NullArray()); }
void CapturingReplyBuilder::Array(int64_t n) { OpenAggregate(Value::Kind::kArray, n, n); }
void CapturingReplyBuilder::Map(int64_t n) {
  OpenAggregate(Value::Kind::kMap, n, n > INT64_MAX / 2 ? INT64_MAX : n * 2);
}
void CapturingReplyBuilder::Set(int64_t n) { OpenAggregate(Value::Kind::kSet, n, n); }
void CapturingReplyBuilder::Push(int64_t n) { OpenAggregate(Value::Kind::kArray, n, n); }
void CapturingReplyBuilder::Double(double d) { Add(Value::Double(d)); }
void CapturingReplyBuilder::Bool(bool b) { Add(Value::Bool(b)); }
void CapturingReplyBuilder::Verbatim(std::string_view s) { Add(Value::Verbatim(s)); }

Value CapturingReplyBuilder::Take() {
  if (done_.empty()) return Value::Null();
  Value v = std::move(done_.front());
  done_.erase(done_.begin());  // Take's callers have one value or a few, not a queue
  return v;
}

std::vector<Value> CapturingReplyBuilder::TakeAll() {
  std::vector<Value> all(std::make_move_iterator(done_.begin()),
                         std::make_move_iterator(done_.end()));
  done_.clear();
  return all;
}

void CapturingReplyBuilder::Clear() {
  done_.clear();
  open_.clear();
  root_ = Value();
}

void Replay(const Value& value, ReplyBuilder& out) {
  using Kind = Value::Kind;
  const auto count = static_cast<int64_t>(value.elements.size());
  switch (value.kind) {
    case Kind::kSimple:
      out.Simple(value.str);
      return;
    case Kind::kError:
      out.Error(Code::kRaw, value.str);
      return;
    case Kind::kInt:
      out.Int(value.integer);
      return;
    case Kind::kBulk:
      out.Bulk(value.str);
      return;
    case Kind::kNull:
      out.Null();
      return;
    case Kind::kNullArray:
      out.NullArray();
      return;
    case Kind::kArray:
      out.Array(count);
      break;
    case Kind::kMap:
      out.Map(count / 2);
      break;
    case Kind::kSet:
      out.Set(count);
      break;
    case Kind::kDouble:
      out.Double(value.dbl);
      return;
    case Kind::kBool:
      out.Bool(value.boolean());
      return;
    case Kind::kVerbatim:
      out.Verbatim(value.str);
      return;
  }
  for (const Value& element : value.elements) Replay(element, out);
}

}  // namespace sluice::resp
