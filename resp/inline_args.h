#pragma once

// Splits an inline request line (telnet style) into arguments, by the rules of Redis's
// sdssplitargs: blanks separate arguments; "double quotes" take \n \r \t \b \a \\ \" and \xHH
// escapes (any other escaped character stands for itself); 'single quotes' take \' only; a
// quote may open in the middle of an argument (a"b c" is one argument, "ab c"); a closing quote
// must be followed by a blank or the end of the line. Unlike sdssplitargs, which works on C
// strings, a NUL byte is an ordinary character here.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::resp {

struct ArgSpan {
  size_t offset;
  size_t length;
};

// Appends the unescaped bytes of each argument to *storage and its place there to *spans.
// Returns false on unbalanced quotes (the caller reports Redis's protocol error).
bool SplitInlineArgs(std::string_view line, std::string* storage, std::vector<ArgSpan>* spans);

// Appends `arg` quoted and escaped as Redis's sdscatrepr, a form SplitInlineArgs reads back:
// \" \\ \n \r \t \a \b, other bytes outside printable ASCII as \xhh (MONITOR's lines,
// CONFIG REWRITE's strings).
void AppendRepr(std::string_view arg, std::string* out);

}  // namespace sluice::resp
