#include "server/metrics/http_message.h"

namespace sluice::server {
namespace {

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
  }
  return "Unknown";
}

bool IsTokenChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

}  // namespace

std::optional<HttpRequest> ParseRequestHead(std::string_view head) {
  size_t eol = head.find("\r\n");
  if (eol == std::string_view::npos) return std::nullopt;
  std::string_view line = head.substr(0, eol);
  size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return std::nullopt;
  size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  for (char c : method) {
    if (!IsTokenChar(c)) return std::nullopt;
  }
  if (target.empty() || target[0] != '/' || version.substr(0, 7) != "HTTP/1.") {
    return std::nullopt;
  }
  return HttpRequest{std::string(method), std::string(target.substr(0, target.find('?')))};
}

std::string SerializeResponse(const HttpResponse& response, bool head_only) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " ";
  out += ReasonPhrase(response.status);
  out += "\r\nContent-Type: " + response.content_type;
  out += "\r\nContent-Length: " + std::to_string(response.body.size());
  // Every response is a live reading: nothing may cache it.
  out += "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close";
  for (const auto& [name, value] : response.headers) out += "\r\n" + name + ": " + value;
  out += "\r\n\r\n";
  if (!head_only) out += response.body;
  return out;
}

HttpResponse TextResponse(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

}  // namespace sluice::server
