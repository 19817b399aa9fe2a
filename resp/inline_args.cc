#include "resp/inline_args.h"

namespace sluice::resp {
namespace {

// isspace() in the C locale: what sdssplitargs skips between arguments and accepts after a
// closing quote.
bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// What ends an unquoted argument; narrower than IsBlank (\v and \f are kept), as in Redis.
bool EndsWord(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char Unescape(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'b':
      return '\b';
    case 'a':
      return '\a';
    default:
      return c;
  }
}

enum class Quote { kNone, kDouble, kSingle };

// The two-character escape sdscatrepr writes for `c`, if any.
std::string_view Escape(char c) {
  switch (c) {
    case '\\':
      return "\\\\";
    case '"':
      return "\\\"";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\a':
      return "\\a";
    case '\b':
      return "\\b";
    default:
      return {};
  }
}

}  // namespace

bool SplitInlineArgs(std::string_view line, std::string* storage, std::vector<ArgSpan>* spans) {
  const size_t n = line.size();
  size_t i = 0;
  for (;;) {
    while (i < n && IsBlank(line[i])) ++i;
    if (i == n) return true;

    const size_t start = storage->size();
    Quote quote = Quote::kNone;
    bool done = false;
    while (!done) {
      if (quote == Quote::kNone) {
        if (i == n || EndsWord(line[i])) {
          done = true;
        } else if (line[i] == '"') {
          quote = Quote::kDouble;
        } else if (line[i] == '\'') {
          quote = Quote::kSingle;
        } else {
          storage->push_back(line[i]);
        }
        if (i < n) ++i;
        continue;
      }
      if (i == n) return false;  // the line ended inside quotes
      const char c = line[i];
      const bool closing =
          (quote == Quote::kDouble && c == '"') || (quote == Quote::kSingle && c == '\'');
      if (closing) {
        if (i + 1 < n && !IsBlank(line[i + 1])) return false;
        done = true;
        ++i;
      } else if (quote == Quote::kDouble && c == '\\' && i + 3 < n && line[i + 1] == 'x' &&
                 HexValue(line[i + 2]) >= 0 && HexValue(line[i + 3]) >= 0) {
        storage->push_back(static_cast<char>(HexValue(line[i + 2]) * 16 + HexValue(line[i + 3])));
        i += 4;
      } else if (quote == Quote::kDouble && c == '\\' && i + 1 < n) {
        storage->push_back(Unescape(line[i + 1]));
        i += 2;
      } else if (quote == Quote::kSingle && c == '\\' && i + 1 < n && line[i + 1] == '\'') {
        storage->push_back('\'');
        i += 2;
      } else {
        storage->push_back(c);
        ++i;
      }
    }
    spans->push_back({start, storage->size() - start});
  }
}

void AppendRepr(std::string_view arg, std::string* out) {
  constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : arg) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::string_view escape = Escape(c); !escape.empty()) {
      out->append(escape);
    } else if (byte >= 0x20 && byte < 0x7f) {
      out->push_back(c);
    } else {
      out->append("\\x");
      out->push_back(kHex[byte >> 4]);
      out->push_back(kHex[byte & 0xf]);
    }
  }
  out->push_back('"');
}

}  // namespace sluice::resp
