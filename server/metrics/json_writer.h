#pragma once

// A small streaming JSON writer for /status.json: objects, arrays, strings, integers, null.
// Commas are placed by the writer; strings are escaped and made valid UTF-8.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::server {

class JsonWriter {
 public:
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  // Inside an object: the next value's name.
  void Key(std::string_view name);
  void String(std::string_view value);
  void Int(int64_t value);
  void Uint(uint64_t value);
  void Null();

  // Key(name) followed by the value.
  void Field(std::string_view name, std::string_view value) { Key(name), String(value); }
  void Field(std::string_view name, const char* value) { Key(name), String(value); }
  void Field(std::string_view name, uint64_t value) { Key(name), Uint(value); }
  void Field(std::string_view name, int64_t value) { Key(name), Int(value); }

  std::string Take() { return std::move(text_); }

 private:
  void Open(char bracket);
  void Close(char bracket);
  void BeforeValue();
  void Quoted(std::string_view text);

  std::string text_;
  std::vector<bool> has_items_;  // per open container: a comma goes before the next item
  bool after_key_ = false;
};

}  // namespace sluice::server
