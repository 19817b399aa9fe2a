#pragma once

// A reply as a tree: what CapturingReplyBuilder records, what Lua converts from, and what unit
// tests compare against. No RESP text involved.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::resp {

struct Value {
  enum class Kind : uint8_t {
    kSimple,
    kError,
    kInt,
    kBulk,
    kNull,
    kNullArray,
    kArray,
    kMap,
    kSet,
    kDouble,
    kBool,
    kVerbatim,
  };

  Kind kind = Kind::kNull;
  int64_t integer = 0;  // kInt; kBool as 0 / 1
  double dbl = 0;       // kDouble
  // kSimple, kBulk, kVerbatim: the text; kError: the error line without '-', e.g. "ERR syntax
  // error" (replayed as Code::kRaw, so the prefix is kept as captured).
  std::string str;
  std::vector<Value> elements;  // kArray, kSet; kMap flattened as k1, v1, k2, v2, ...

  static Value Simple(std::string_view s);
  static Value Error(std::string_view line);
  static Value Int(int64_t v);
  static Value Bulk(std::string_view s);
  static Value Null();
  static Value NullArray();
  static Value Array(std::vector<Value> elements);
  static Value Map(std::vector<Value> flat_pairs);
  static Value Set(std::vector<Value> elements);
  static Value Double(double d);
  static Value Bool(bool b);
  static Value Verbatim(std::string_view s);

  bool boolean() const { return integer != 0; }

  // Compares only what the kind uses; doubles by bit pattern, any NaN equal to any NaN.
  bool operator==(const Value& other) const;

  // Compact, unambiguous text for test failure messages: +OK -ERR x :1 "bulk" (nil)
  // (nil-array) [a, b] {k: v} ~[a] ,1.5 #t =txt:...
  std::string ToString() const;
};

std::ostream& operator<<(std::ostream& os, const Value& value);

}  // namespace sluice::resp
