#include "server/metrics/json_writer.h"

#include "server/metrics/readable_text.h"

namespace sluice::server {

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) text_ += ',';
    has_items_.back() = true;
  }
}

void JsonWriter::Open(char bracket) {
  BeforeValue();
  text_ += bracket;
  has_items_.push_back(false);
}

void JsonWriter::Close(char bracket) {
  text_ += bracket;
  has_items_.pop_back();
}

void JsonWriter::Key(std::string_view name) {
  BeforeValue();
  Quoted(name);
  text_ += ':';
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  Quoted(value);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  text_ += std::to_string(value);
}

void JsonWriter::Uint(uint64_t value) {
  BeforeValue();
  text_ += std::to_string(value);
}

void JsonWriter::Null() {
  BeforeValue();
  text_ += "null";
}

void JsonWriter::Quoted(std::string_view raw) {
  static constexpr char kHex[] = "0123456789abcdef";
  text_ += '"';
  for (char c : ReadableUtf8(raw)) {
    auto b = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      text_ += '\\';
      text_ += c;
    } else if (b < 0x20 || c == '<' || c == '>' || c == '&') {
      // Control characters must be escaped; <, > and & too, so no text can close a tag
      // if the JSON is ever embedded in HTML.
      text_ += "\\u00";
      text_ += kHex[b >> 4];
      text_ += kHex[b & 0xF];
    } else {
      text_ += c;
    }
  }
  text_ += '"';
}

}  // namespace sluice::server
