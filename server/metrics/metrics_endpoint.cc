#include "server/metrics/metrics_endpoint.h"

#include "server/metrics/metrics_text.h"
#include "server/metrics/status_json.h"
#include "server/metrics/status_page.h"

namespace sluice::server {
namespace {

// The page may talk to its own origin only: nothing is fetched from anywhere else.
constexpr std::string_view kPagePolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'";

HttpResponse Content(std::string_view type, std::string body) {
  HttpResponse response;
  response.content_type = std::string(type);
  response.body = std::move(body);
  return response;
}

}  // namespace

MetricsEndpoint::MetricsEndpoint(boost::asio::io_context& io, ServerContext& server)
    : server_(server), http_(io, [this](const HttpRequest& request) { return Handle(request); }) {}

HttpResponse MetricsEndpoint::Handle(const HttpRequest& request) {
  if (request.path == "/" || request.path == "/index.html") {
    HttpResponse page = Content("text/html; charset=utf-8", std::string(StatusPageHtml()));
    page.headers.emplace_back("Content-Security-Policy", std::string(kPagePolicy));
    return page;
  }
  bool metrics = request.path == "/metrics";
  if (!metrics && request.path != "/status.json") return TextResponse(404, "not found\n");
  if (server_.engine == nullptr) return TextResponse(503, "shutting down\n");
  KeyCensus::Figures keys = census_.Read(*server_.engine, server_.clock->NowMillis());
  if (metrics) {
    return Content("text/plain; version=0.0.4; charset=utf-8", BuildMetricsText(server_, keys));
  }
  return Content("application/json", BuildStatusJson(server_, keys));
}

}  // namespace sluice::server
