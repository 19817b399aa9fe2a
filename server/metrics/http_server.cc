#include "server/metrics/http_server.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <optional>
#include <unordered_set>

#include "server/tcp_listen.h"

namespace sluice::server {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

struct Connection {
  explicit Connection(tcp::socket s) : socket(std::move(s)), deadline(socket.get_executor()) {}
  void Close() {
    boost::system::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
  }
  tcp::socket socket;
  asio::steady_timer deadline;
};

constexpr std::string_view kBusyResponse =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

}  // namespace

struct HttpServerState {
  HttpServer::Handler handler;
  HttpLimits limits;
  std::unordered_set<Connection*> open;
};

namespace {

HttpResponse Respond(const HttpServer::Handler& handler, std::string_view head, bool* head_only) {
  auto request = ParseRequestHead(head);
  if (!request) return TextResponse(400, "bad request\n");
  *head_only = request->method == "HEAD";
  if (request->method != "GET" && !*head_only) {
    HttpResponse response = TextResponse(405, "only GET and HEAD\n");
    response.headers.emplace_back("Allow", "GET, HEAD");
    return response;
  }
  return handler(*request);
}

// Holds shared pointers only: the frame never refers to the HttpServer, which may be gone
// when an unfinished connection is torn down with the io_context.
// The caller has put `conn` in shared->open.
asio::awaitable<void> Serve(std::shared_ptr<Connection> conn,
                            std::shared_ptr<HttpServerState> shared) {
  conn->deadline.expires_after(shared->limits.timeout);
  conn->deadline.async_wait([weak = std::weak_ptr<Connection>(conn)](boost::system::error_code ec) {
    if (ec) return;
    if (auto c = weak.lock()) c->Close();  // a slow or idle peer loses its connection
  });

  boost::system::error_code ec;
  std::string input;
  size_t head_bytes = co_await asio::async_read_until(
      conn->socket, asio::dynamic_buffer(input, shared->limits.max_request_bytes), "\r\n\r\n",
      asio::redirect_error(asio::use_awaitable, ec));
  bool head_only = false;
  std::optional<HttpResponse> response;
  if (ec == asio::error::not_found) {  // the head did not fit the limit
    response = TextResponse(431, "request head too large\n");
  } else if (!ec) {
    response = Respond(shared->handler, std::string_view(input).substr(0, head_bytes), &head_only);
  }
  if (response) {
    std::string out = SerializeResponse(*response, head_only);
    co_await asio::async_write(conn->socket, asio::buffer(out),
                               asio::redirect_error(asio::use_awaitable, ec));
  }
  conn->Close();
  conn->deadline.cancel();
  shared->open.erase(conn.get());
}

}  // namespace

HttpServer::HttpServer(asio::io_context& io, Handler handler, HttpLimits limits)
    : io_(io), shared_(std::make_shared<HttpServerState>()) {
  shared_->handler = std::move(handler);
  shared_->limits = limits;
}

HttpServer::~HttpServer() { Stop(); }

size_t HttpServer::active() const { return shared_->open.size(); }

Status HttpServer::Listen(const std::vector<std::string>& addresses, int port) {
  std::vector<std::string> entries = addresses;
  if (entries.empty()) entries.push_back("0.0.0.0");
  for (const std::string& entry : entries) {
    StatusOr<BindAddress> bind = ParseBindAddress(entry);
    if (!bind.ok()) return bind.status();
    tcp::endpoint endpoint(bind->address, static_cast<uint16_t>(port));
    auto acceptor = std::make_unique<Acceptor>(io_);
    boost::system::error_code ec = ListenOn(*acceptor, endpoint, bind->address.is_v6(), 16);
    if (ec) {
      if (bind->optional && IsAddressUnavailable(ec)) continue;
      return Err("Could not listen on metrics-port " + bind->host + ":" + std::to_string(port) +
                 ": " + ec.message());
    }
    Accept(*acceptor);
    acceptors_.push_back(std::move(acceptor));
  }
  if (acceptors_.empty()) return Err("metrics-port: no usable bind address");
  return Status::Ok();
}

void HttpServer::Accept(Acceptor& acceptor) {
  acceptor.async_accept([this, &acceptor](boost::system::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;  // Stop()
    if (!ec) {
      if (shared_->open.size() >= shared_->limits.max_connections) {
        // Best effort, never waiting: a scraper sees why, the loop never blocks. Whatever
        // request already arrived is read first, as closing over unread data sends a reset.
        boost::system::error_code ignored;
        socket.non_blocking(true, ignored);
        char discard[1024];
        socket.read_some(asio::buffer(discard), ignored);
        socket.write_some(asio::buffer(kBusyResponse), ignored);
        socket.shutdown(tcp::socket::shutdown_both, ignored);
        socket.close(ignored);
      } else {
        // Counted (and closed by Stop) from now on, not from when the coroutine first runs.
        auto conn = std::make_shared<Connection>(std::move(socket));
        shared_->open.insert(conn.get());
        asio::co_spawn(io_, Serve(std::move(conn), shared_), asio::detached);
      }
    }
    Accept(acceptor);
  });
}

void HttpServer::Stop() {
  boost::system::error_code ignored;
  for (auto& acceptor : acceptors_) acceptor->close(ignored);
  acceptors_.clear();
  for (Connection* conn : shared_->open) conn->Close();
}

}  // namespace sluice::server
