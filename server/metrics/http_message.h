#pragma once

// The little of HTTP/1.1 the metrics port needs: the request line of a GET or HEAD (headers
// are read but not interpreted, bodies are not accepted) and a complete response that closes
// the connection. Pure functions, so they are tested without sockets.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::server {

struct HttpRequest {
  std::string method;  // as sent: GET, HEAD ...
  std::string path;    // the target without its query string
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra ones
};

// The request head is everything up to and including the blank line. nullopt when its request
// line is not `METHOD SP origin-form-target SP HTTP/1.x`.
std::optional<HttpRequest> ParseRequestHead(std::string_view head);

// Status line, headers (Content-Length, Connection: close, no caching) and, unless
// `head_only`, the body.
std::string SerializeResponse(const HttpResponse& response, bool head_only);

HttpResponse TextResponse(int status, std::string body);

}  // namespace sluice::server
