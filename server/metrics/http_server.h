#pragma once

// A deliberately small HTTP server on the daemon's own io_context, for /metrics and the
// status page. It must never slow the Redis port down, so: one request per connection
// (Connection: close), a bounded request head, a deadline per connection, and at most a few
// connections at once (more get 503 at once). Handlers run on the loop thread and should
// answer in well under a millisecond.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "server/metrics/http_message.h"

namespace sluice::server {

struct HttpServerState;  // in the .cc: shared with connections, which may outlive the server

struct HttpLimits {
  size_t max_request_bytes = 8 * 1024;
  size_t max_connections = 4;
  std::chrono::milliseconds timeout{5000};  // whole connection: read, handle, write
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  HttpServer(boost::asio::io_context& io, Handler handler, HttpLimits limits = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens on `port` at each address, in `bind` directive syntax ("-" prefix: skip when the
  // address is unavailable; "*" and "::*" for any). An empty list means any IPv4 address.
  Status Listen(const std::vector<std::string>& addresses, int port);
  // Stops accepting and closes open connections.
  void Stop();

  // Connections being served now.
  size_t active() const;

 private:
  using Acceptor = boost::asio::ip::tcp::acceptor;

  void Accept(Acceptor& acceptor);

  boost::asio::io_context& io_;
  std::shared_ptr<HttpServerState> shared_;
  std::vector<std::unique_ptr<Acceptor>> acceptors_;
};

}  // namespace sluice::server
