#include "server/durable_commits.h"

#include <algorithm>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace sluice::server {
namespace asio = boost::asio;

DurableCommits::DurableCommits(const asio::any_io_executor& executor) : changed_(executor) {
  changed_.expires_at(asio::steady_timer::time_point::max());
}

void DurableCommits::MarkDurable(uint64_t mark) {
  if (mark <= durable_) return;
  durable_ = mark;
  settled_ = std::max(settled_, mark);
  WakeWaiters();
}

void DurableCommits::Abandon(uint64_t mark) {
  if (mark <= abandoned_) return;
  abandoned_ = mark;
  settled_ = std::max(settled_, mark);
  WakeWaiters();
}

void DurableCommits::WakeWaiters() { changed_.cancel(); }  // the expiry stays at max

asio::awaitable<bool> DurableCommits::WaitUntilDurable(uint64_t mark) {
  if (mark <= settled_) co_return true;
  for (;;) {
    boost::system::error_code ignored;  // cancelled is how a change wakes us
    co_await changed_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    if (mark <= durable_) co_return true;
    if (mark <= abandoned_) co_return false;  // (it was above it when the wait began)
  }
}

}  // namespace sluice::server
