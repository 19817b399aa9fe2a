#pragma once

// metrics-port: /metrics (Prometheus), / (the status page) and /status.json (what the page
// polls), served by a small HttpServer on the daemon's own loop.

#include <boost/asio/io_context.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "server/metrics/http_server.h"
#include "server/metrics/key_census.h"
#include "server/server_context.h"

namespace sluice::server {

class MetricsEndpoint {
 public:
  MetricsEndpoint(boost::asio::io_context& io, ServerContext& server);

  // Listens on `port` at the `bind` addresses of the Redis port.
  Status Listen(const std::vector<std::string>& bind, int port) { return http_.Listen(bind, port); }
  void Stop() { http_.Stop(); }

 private:
  HttpResponse Handle(const HttpRequest& request);

  ServerContext& server_;
  KeyCensus census_;
  HttpServer http_;
};

}  // namespace sluice::server
