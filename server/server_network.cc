// The server's network side: listening on TCP and Unix sockets, maxclients against the
// file-descriptor limit, and admitting (or refusing) each accepted connection.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/write.hpp>

#include "server/acl/registry.h"
#include "server/server.h"
#include "server/session.h"
#include "server/tcp_listen.h"

namespace sluice::server {
namespace asio = boost::asio;
using GenericSocket = asio::generic::stream_protocol::socket;
using GenericEndpoint = asio::generic::stream_protocol::endpoint;

namespace {

// The descriptors that are not clients': Redis's CONFIG_MIN_RESERVED_FDS for the server's
// own (listeners, the log, the metrics port ...), and the storage engine's (its open tables).
constexpr int kReservedFds = 32 + storage::kEngineFileDescriptors;

constexpr std::string_view kMaxClientsError = "-ERR max number of clients reached\r\n";
constexpr std::string_view kProtectedModeError =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from "
    "the loopback interface. If you want to connect from external computers to Redis you may "
    "adopt one of the following solutions: 1) Just disable protected mode sending the command "
    "'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from "
    "the same host the server is running, however MAKE SURE Redis is not publicly accessible "
    "from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) "
    "Alternatively you can just disable the protected mode by editing the Redis configuration "
    "file, and setting the protected mode option to 'no', and then restarting the server. 3) "
    "If you started the server manually just for testing, restart it with the "
    "'--protected-mode no' option. 4) Setup a an authentication password for the default "
    "user. NOTE: You only need to do one of the above things in order for the server to start "
    "accepting connections from the outside.\r\n";

// "ip:port" of a socket address, and whether it is a loopback or Unix peer.
struct PeerAddress {
  std::string text;
  bool is_local = false;
};

PeerAddress FormatAddress(const GenericEndpoint& endpoint) {
  const sockaddr* sa = endpoint.data();
  char host[INET6_ADDRSTRLEN] = {0};
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
    bool loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    return {std::string(host) + ":" + std::to_string(ntohs(in->sin_port)), loopback};
  }
  if (sa->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
    bool loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
                    (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127);
    return {std::string(host) + ":" + std::to_string(ntohs(in6->sin6_port)), loopback};
  }
  if (sa->sa_family == AF_UNIX) {
    const auto* un = reinterpret_cast<const sockaddr_un*>(sa);
    return {std::string(un->sun_path) + ":0", true};
  }
  return {"?:0", false};
}

void SetTcpKeepAlive(int fd, int64_t seconds) {
  if (seconds <= 0) return;
  int yes = 1;
  int idle = static_cast<int>(seconds);
  int interval = std::max(1, idle / 3);
  int count = 3;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &yes, sizeof(yes));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
}

// Best effort: a rejected connection gets one line before it is closed.
void RejectConnection(GenericSocket& socket, std::string_view line) {
  boost::system::error_code ignored;
  socket.non_blocking(true, ignored);
  asio::write(socket, asio::buffer(line), ignored);
  socket.close(ignored);
}

}  // namespace

Status Server::BindTcp() {
  if (config_.port == 0) return Status::Ok();
  for (const std::string& entry : config_.bind) {
    StatusOr<BindAddress> bind = ParseBindAddress(entry);
    if (!bind.ok()) return bind.status();
    GenericEndpoint endpoint(
        asio::ip::tcp::endpoint(bind->address, static_cast<uint16_t>(config_.port)));
    auto acceptor = std::make_unique<Acceptor>(io_);
    boost::system::error_code ec =
        ListenOn(*acceptor, endpoint, bind->address.is_v6(), static_cast<int>(config_.tcp_backlog));
    if (ec) {
      if (bind->optional && IsAddressUnavailable(ec)) {
        spdlog::warn("Skipping optional bind address {}: {}", bind->host, ec.message());
        continue;
      }
      return Err("Could not create server TCP listening socket " + bind->host + ":" +
                 std::to_string(config_.port) + ": " + ec.message());
    }
    StartAccepting(*acceptor, false);
    acceptors_.push_back(std::move(acceptor));
  }
  ctx_.tcp_port = config_.port;
  return Status::Ok();
}

Status Server::BindUnixSocket() {
  if (config_.unixsocket.empty()) return Status::Ok();
  ::unlink(config_.unixsocket.c_str());
  GenericEndpoint endpoint(asio::local::stream_protocol::endpoint(config_.unixsocket));
  auto acceptor = std::make_unique<Acceptor>(io_);
  // (SO_REUSEADDR, which ListenOn sets, means nothing for a Unix socket.)
  const boost::system::error_code ec =
      ListenOn(*acceptor, endpoint, /*is_v6=*/false, static_cast<int>(config_.tcp_backlog));
  if (ec) {
    return Err("Failed opening Unix socket " + config_.unixsocket + ": " + ec.message());
  }
  if (config_.unixsocketperm != 0) ::chmod(config_.unixsocket.c_str(), config_.unixsocketperm);
  StartAccepting(*acceptor, true);
  acceptors_.push_back(std::move(acceptor));
  return Status::Ok();
}

int64_t Server::FdLimitedMaxClients(int64_t requested) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return requested;
  auto needed = static_cast<rlim_t>(requested + kReservedFds);
  if (limit.rlim_cur >= needed) return requested;
  rlimit raised = limit;
  raised.rlim_cur = std::min(needed, limit.rlim_max);
  if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  if (limit.rlim_cur >= needed) return requested;
  int64_t lowered = std::max<int64_t>(static_cast<int64_t>(limit.rlim_cur) - kReservedFds, 1);
  // Redis's two lines (adjustOpenFilesLimit).
  spdlog::warn("You requested maxclients of {} requiring at least {} max file descriptors.",
               requested, needed);
  spdlog::warn(
      "Current maximum open files is {}. maxclients has been reduced to {} to "
      "compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.",
      limit.rlim_cur, lowered);
  return lowered;
}

void Server::StartAccepting(Acceptor& acceptor, bool is_unix) {
  acceptor.async_accept(
      [this, &acceptor, is_unix](const boost::system::error_code& ec, GenericSocket socket) {
        if (ec == asio::error::operation_aborted || shutting_down_) return;
        if (ec == asio::error::no_descriptors || ec == boost::system::errc::too_many_files_open ||
            ec == boost::system::errc::too_many_files_open_in_system ||
            ec == asio::error::no_buffer_space || ec == asio::error::no_memory) {
          // The connection stays in the backlog and accept() would fail again at once: retry
          // later rather than spin (and flood the log) until a descriptor is free.
          PauseAccepting(acceptor, is_unix);
          return;
        }
        if (ec) {
          spdlog::warn("Accepting a client connection: {}", ec.message());
        } else {
          if (out_of_fds_) {
            spdlog::warn("Accepting client connections again");
            out_of_fds_ = false;
          }
          OnAccepted(std::move(socket), is_unix);
        }
        StartAccepting(acceptor, is_unix);
      });
}

void Server::PauseAccepting(Acceptor& acceptor, bool is_unix) {
  if (!out_of_fds_) {
    spdlog::warn(
        "Accepting a client connection: out of file descriptors ({} clients "
        "connected); retrying every 100 ms",
        sessions_.size());
    out_of_fds_ = true;
  }
  paused_acceptors_.emplace_back(&acceptor, is_unix);
  if (paused_acceptors_.size() > 1) return;  // the timer is already armed
  accept_retry_timer_.expires_after(std::chrono::milliseconds(100));
  accept_retry_timer_.async_wait([this](const boost::system::error_code& ec) {
    std::vector<std::pair<Acceptor*, bool>> paused;
    paused.swap(paused_acceptors_);
    if (ec || shutting_down_) return;
    for (auto& [acceptor, is_unix] : paused) StartAccepting(*acceptor, is_unix);
  });
}

void Server::OnAccepted(GenericSocket socket, bool is_unix) {
  if (static_cast<int64_t>(sessions_.size()) >= config_.maxclients) {
    ctx_.stats.rejected_connections++;
    RejectConnection(socket, kMaxClientsError);
    return;
  }
  boost::system::error_code ec;
  Client client;
  client.is_unix = is_unix;
  if (is_unix) {
    client.addr = config_.unixsocket + ":0";
    client.laddr = client.addr;
    client.is_local = true;
  } else {
    PeerAddress peer = FormatAddress(socket.remote_endpoint(ec));
    if (ec) return;  // the peer is already gone
    client.addr = peer.text;
    client.is_local = peer.is_local;
    client.laddr = FormatAddress(socket.local_endpoint(ec)).text;
    socket.set_option(asio::ip::tcp::no_delay(true), ec);
    SetTcpKeepAlive(socket.native_handle(), config_.tcp_keepalive);
  }
  // As Redis: protected while the default user needs no password.
  if (config_.protected_mode && ctx_.acl->default_user()->nopass && !client.is_local) {
    ctx_.stats.rejected_connections++;
    RejectConnection(socket, kProtectedModeError);
    return;
  }
  // As Redis: a connection turned away above counts as rejected, not as received.
  ctx_.stats.total_connections_received++;
  client.id = ctx_.next_client_id++;
  client.fd = socket.native_handle();
  client.user = ctx_.acl->default_user();
  client.authenticated = ctx_.acl->DefaultNeedsNoAuth();
  client.created_ms = WallMillis();
  client.last_interaction_ms = client.created_ms;
  uint64_t id = client.id;
  auto session = std::make_shared<Session>(*this, std::move(socket), std::move(client));
  sessions_.emplace(id, session);
  session->Start();
}

}  // namespace sluice::server
