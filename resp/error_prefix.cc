#include "resp/error_prefix.h"

#include "resp/error_messages.h"

namespace sluice::resp {

std::string_view ErrorPrefix(Code code) {
  switch (code) {
    case Code::kWrongType:
      return "WRONGTYPE";
    case Code::kNoScript:
      return "NOSCRIPT";
    case Code::kBusy:
      return "BUSY";
    case Code::kNoAuth:
      return "NOAUTH";
    case Code::kWrongPass:
      return "WRONGPASS";
    case Code::kNoPerm:
      return "NOPERM";
    case Code::kExecAbort:
      return "EXECABORT";
    case Code::kMisconf:
      return "MISCONF";
    case Code::kUnkillable:
      return "UNKILLABLE";
    case Code::kNotBusy:
      return "NOTBUSY";
    case Code::kRaw:
      return "";
    case Code::kOk:  // Not an error; a caller replying with it has a bug, keep the reply valid.
    case Code::kErr:
    case Code::kSyntax:
    case Code::kIo:
    case Code::kProtocol:
      break;
  }
  return "ERR";
}

void AppendErrorLine(const Status& status, std::string* out) {
  std::string_view prefix = ErrorPrefix(status.code());
  std::string_view message = status.message();
  if (status.code() == Code::kSyntax && message.empty()) message = kSyntaxError;
  // storage/ has no texts: its type classes return kWrongType with an empty message.
  if (status.code() == Code::kWrongType && message.empty()) message = kWrongTypeMsg;
  out->append(prefix);
  if (!prefix.empty() && !message.empty()) out->push_back(' ');
  // As Redis's addReplyErrorFormat: newlines at the end go, the others become spaces (a
  // reply line cannot hold them).
  while (!message.empty() && (message.back() == '\r' || message.back() == '\n')) {
    message.remove_suffix(1);
  }
  size_t start = out->size();
  out->append(message);
  for (size_t i = start; i < out->size(); ++i) {
    char& c = (*out)[i];
    if (c == '\r' || c == '\n') c = ' ';
  }
}

std::string ErrorLine(const Status& status) {
  std::string line;
  AppendErrorLine(status, &line);
  return line;
}

}  // namespace sluice::resp
