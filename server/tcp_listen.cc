#include "server/tcp_listen.h"

namespace sluice::server {

StatusOr<BindAddress> ParseBindAddress(const std::string& entry) {
  BindAddress bind;
  bind.optional = !entry.empty() && entry[0] == '-';
  bind.host = bind.optional ? entry.substr(1) : entry;
  if (bind.host == "*") bind.host = "0.0.0.0";
  if (bind.host == "::*") bind.host = "::";
  boost::system::error_code ec;
  bind.address = boost::asio::ip::make_address(bind.host, ec);
  if (ec) return Err("invalid bind address '" + entry + "'");
  return bind;
}

bool IsAddressUnavailable(const boost::system::error_code& ec) {
  return ec == boost::system::errc::address_not_available ||
         ec == boost::system::errc::address_family_not_supported;
}

}  // namespace sluice::server
