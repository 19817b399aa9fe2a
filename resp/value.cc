#include "resp/value.h"

#include <bit>
#include <cmath>
#include <ostream>

#include "resp/number_format.h"

namespace sluice::resp {
namespace {

Value Make(Value::Kind kind) {
  Value v;
  v.kind = kind;
  return v;
}

Value MakeText(Value::Kind kind, std::string_view s) {
  Value v = Make(kind);
  v.str.assign(s);
  return v;
}

Value MakeAggregate(Value::Kind kind, std::vector<Value> elements) {
  Value v = Make(kind);
  v.elements = std::move(elements);
  return v;
}

bool SameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

void AppendQuoted(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '\r') {
      out->append("\\r");
    } else if (u < 0x20 || u >= 0x7f) {
      out->append("\\x");
      out->push_back(kHex[u >> 4]);
      out->push_back(kHex[u & 0xf]);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void AppendValue(const Value& v, std::string* out);

void AppendElements(const Value& v, std::string_view open, std::string_view close, bool pairs,
                    std::string* out) {
  out->append(open);
  for (size_t i = 0; i < v.elements.size(); ++i) {
    if (i > 0) out->append(pairs && i % 2 == 1 ? ": " : ", ");
    AppendValue(v.elements[i], out);
  }
  out->append(close);
}

void AppendValue(const Value& v, std::string* out) {
  using Kind = Value::Kind;
  switch (v.kind) {
    case Kind::kSimple:
      out->push_back('+');
      out->append(v.str);
      return;
    case Kind::kError:
      out->push_back('-');
      out->append(v.str);
      return;
    case Kind::kInt:
      out->push_back(':');
      AppendInt(v.integer, out);
      return;
    case Kind::kBulk:
      AppendQuoted(v.str, out);
      return;
    case Kind::kNull:
      out->append("(nil)");
      return;
    case Kind::kNullArray:
      out->append("(nil-array)");
      return;
    case Kind::kArray:
      AppendElements(v, "[", "]", false, out);
      return;
    case Kind::kMap:
      AppendElements(v, "{", "}", true, out);
      return;
    case Kind::kSet:
      AppendElements(v, "~[", "]", false, out);
      return;
    case Kind::kDouble:
      out->push_back(',');
      AppendDouble(v.dbl, out);
      return;
    case Kind::kBool:
      out->append(v.boolean() ? "#t" : "#f");
      return;
    case Kind::kVerbatim:
      out->append("=txt:");
      AppendQuoted(v.str, out);
      return;
  }
}

}  // namespace

Value Value::Simple(std::string_view s) { return MakeText(Kind::kSimple, s); }
Value Value::Error(std::string_view line) { return MakeText(Kind::kError, line); }
Value Value::Bulk(std::string_view s) { return MakeText(Kind::kBulk, s); }
Value Value::Verbatim(std::string_view s) { return MakeText(Kind::kVerbatim, s); }
Value Value::Null() { return Make(Kind::kNull); }
Value Value::NullArray() { return Make(Kind::kNullArray); }
Value Value::Array(std::vector<Value> elements) {
  return MakeAggregate(Kind::kArray, std::move(elements));
}
Value Value::Map(std::vector<Value> flat_pairs) {
  return MakeAggregate(Kind::kMap, std::move(flat_pairs));
}
Value Value::Set(std::vector<Value> elements) {
  return MakeAggregate(Kind::kSet, std::move(elements));
}

Value Value::Int(int64_t v) {
  Value value = Make(Kind::kInt);
  value.integer = v;
  return value;
}

Value Value::Bool(bool b) {
  Value value = Make(Kind::kBool);
  value.integer = b ? 1 : 0;
  return value;
}

Value Value::Double(double d) {
  Value value = Make(Kind::kDouble);
  value.dbl = d;
  return value;
}

bool Value::operator==(const Value& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case Kind::kSimple:
    case Kind::kError:
    case Kind::kBulk:
    case Kind::kVerbatim:
      return str == other.str;
    case Kind::kInt:
    case Kind::kBool:
      return integer == other.integer;
    case Kind::kDouble:
      return SameDouble(dbl, other.dbl);
    case Kind::kArray:
    case Kind::kMap:
    case Kind::kSet:
      return elements == other.elements;
    case Kind::kNull:
    case Kind::kNullArray:
      return true;
  }
  return false;
}

std::string Value::ToString() const {
  std::string out;
  AppendValue(*this, &out);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Value& value) { return os << value.ToString(); }

}  // namespace sluice::resp
