#pragma once

// Listening on the addresses of a `bind`-style list, shared by the RESP port and the metrics
// port: the entry syntax ("-host" optional, "*" and "::*" wildcards, as Redis) and the
// acceptor set-up.

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/system/error_code.hpp>
#include <string>

#include "common/status.h"

namespace sluice::server {

struct BindAddress {
  std::string host;       // without the '-'
  bool optional = false;  // "-host": skipped where the address does not exist here
  boost::asio::ip::address address;
};

StatusOr<BindAddress> ParseBindAddress(const std::string& entry);

// Whether a listen error means the address does not exist on this machine.
bool IsAddressUnavailable(const boost::system::error_code& ec);

// Opens `acceptor` for `endpoint` (address reuse, IPv6 only for IPv6), binds and listens.
template <typename Acceptor, typename Endpoint>
boost::system::error_code ListenOn(Acceptor& acceptor, const Endpoint& endpoint, bool is_v6,
                                   int backlog) {
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(boost::asio::socket_base::reuse_address(true), ec);
  if (!ec && is_v6) acceptor.set_option(boost::asio::ip::v6_only(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(backlog, ec);
  return ec;
}

}  // namespace sluice::server
