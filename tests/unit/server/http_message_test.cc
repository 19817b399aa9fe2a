// The metrics port's HTTP: request lines it accepts and refuses, and complete responses.

#include "server/metrics/http_message.h"

#include <gtest/gtest.h>

namespace sluice::server {
namespace {

TEST(ParseRequestHead, RequestLine) {
  auto r = ParseRequestHead("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->method, "GET");
  EXPECT_EQ(r->path, "/metrics");
  r = ParseRequestHead("HEAD / HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->method, "HEAD");
  EXPECT_EQ(r->path, "/");
}

TEST(ParseRequestHead, RefusesMalformedLines) {
  for (const char* head : {"GET /\r\n\r\n", "GET / HTTP/2\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n",
                           "GET http://x/ HTTP/1.1\r\n\r\n", "G\x01T / HTTP/1.1\r\n\r\n",
                           "GET / HTTP/1.1 extra\r\n\r\n", "no newline at all", ""}) {
    EXPECT_FALSE(ParseRequestHead(head).has_value()) << head;
  }
}

TEST(SerializeResponse, HeadersAndBody) {
  HttpResponse response = TextResponse(404, "not found\n");
  response.headers.emplace_back("X-A", "b");
  std::string text = SerializeResponse(response, false);
  EXPECT_EQ(text,
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: 10\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
            "Connection: close\r\nX-A: b\r\n\r\nnot found\n");
  // HEAD: the same headers (Content-Length of the body), no body.
  std::string head = SerializeResponse(response, true);
  EXPECT_EQ(head, text.substr(0, text.size() - 10));
}

}  // namespace
}  // namespace sluice::server
