// sluice-paced: an open-loop load generator for Redis-protocol servers, to measure latency at a
// given request rate (redis-benchmark is closed-loop: it sends the next request only when the
// previous reply is in, so a slow server lowers the load it is measured under and its stalls
// hide in a few slow samples: "coordinated omission").
//
//   sluice-paced --port 7000 --rate 20000 --keys 100000 RL.TOKENBUCKET rl:__rand_int__ 100 1 1000
//
// Each of --clients connections sends at rate/clients on its own fixed schedule (the
// connections' schedules interleaved evenly), whether or not earlier replies are in: late
// replies mean pipelined requests, never a later send. A request's latency runs from its
// scheduled send time to the end of its reply, so time spent waiting to be sent (a busy
// client loop included) is counted too. Requests scheduled in the first --warmup seconds are
// not measured.
//
// Prints one JSON line, exit code 0 once the run is done (problems are in it, and on stderr):
// offered and achieved req/s; sent, completed, errors (error replies), timeouts (unanswered
// --drain seconds after the last send), failed_connections; p50 p90 p99 p99.9 and max in ms;
// max_send_lag_ms, the latest a request went out after its scheduled time (a busy client
// loop, or a server not reading: TCP back-pressure), which the latencies include anyway.

// First, alone (clang-format would sort it after Boost): Asio 1.18's awaitable.hpp uses
// std::exchange without including <utility>.
#include <utility>

// The rest, sorted.
#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench/paced/histogram.h"
#include "bench/paced/reply_scanner.h"

namespace sluice::bench {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

constexpr std::string_view kUsage =
    "usage: sluice-paced --port P --rate R [--host H] [--clients N] [--seconds S] [--warmup S]\n"
    "                    [--keys K] [--drain S] [--seed N] [--] COMMAND [ARG...]\n";
constexpr std::string_view kRandInt = "__rand_int__";  // redis-benchmark's placeholder
constexpr size_t kReadChunk = 16 * 1024;

struct Options {
  std::string host = "127.0.0.1";
  std::string port;
  int clients = 50;
  double rate = 0;
  double seconds = 5;
  double warmup = 1;
  double drain = 2;   // how long to wait for the last replies after the last send
  uint64_t keys = 0;  // 0: __rand_int__ stays as it is (one hot key), as redis-benchmark;
                      // at most 10^12, so the numbers fit in its 12 characters
  uint64_t seed = 1;
  std::vector<std::string> command;
};

bool ParseOptions(int argc, char** argv, Options* o) {
  int i = 1;
  for (; i < argc && std::strncmp(argv[i], "--", 2) == 0; ++i) {
    std::string_view name = argv[i];
    if (name == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) return false;
    const char* value = argv[++i];
    char* end = nullptr;
    if (name == "--host")
      o->host = value;
    else if (name == "--port")
      o->port = value;
    else if (name == "--clients")
      o->clients = static_cast<int>(std::strtol(value, &end, 10));
    else if (name == "--rate")
      o->rate = std::strtod(value, &end);
    else if (name == "--seconds")
      o->seconds = std::strtod(value, &end);
    else if (name == "--warmup")
      o->warmup = std::strtod(value, &end);
    else if (name == "--drain")
      o->drain = std::strtod(value, &end);
    else if (name == "--keys")
      o->keys = std::strtoull(value, &end, 10);
    else if (name == "--seed")
      o->seed = std::strtoull(value, &end, 10);
    else
      return false;
    if (end != nullptr && (*end != '\0' || end == value)) return false;
  }
  o->command.assign(argv + i, argv + argc);
  return !o->command.empty() && !o->port.empty() && o->clients > 0 && o->rate > 0 &&
         o->seconds > 0 && o->warmup >= 0 && o->drain >= 0 && o->keys <= 1'000'000'000'000;
}

// The command encoded once as a RESP array; each request copies it and overwrites every
// __rand_int__ with 12 zero-padded random digits, as redis-benchmark -r does (same width, so
// the encoded lengths never change).
class RequestTemplate {
 public:
  RequestTemplate(const std::vector<std::string>& command, uint64_t keys, uint64_t seed)
      : keys_(keys), rng_(seed) {
    bytes_ = "*" + std::to_string(command.size()) + "\r\n";
    for (const std::string& arg : command) {
      bytes_ += "$" + std::to_string(arg.size()) + "\r\n";
      size_t start = bytes_.size();
      bytes_ += arg + "\r\n";
      for (size_t at = arg.find(kRandInt); keys_ && at != std::string::npos;
           at = arg.find(kRandInt, at + kRandInt.size())) {
        slots_.push_back(start + at);
      }
    }
  }

  void AppendTo(std::string& out) {
    size_t start = out.size();
    out += bytes_;
    for (size_t slot : slots_) {
      char digits[24];
      std::snprintf(digits, sizeof digits, "%012llu",
                    static_cast<unsigned long long>(rng_() % keys_));
      std::memcpy(out.data() + start + slot, digits, kRandInt.size());
    }
  }

 private:
  std::string bytes_;
  std::vector<size_t> slots_;
  uint64_t keys_;
  std::mt19937_64 rng_;
};

struct Connection {
  explicit Connection(asio::io_context& io) : socket(io) {}
  tcp::socket socket;
  uint64_t next_index = 0;          // global request index of its next send
  std::deque<TimePoint> in_flight;  // scheduled send times of the unanswered requests, in order
  bool done_sending = false;
};

// One run: the schedule, the connections and what was measured.
class Run {
 public:
  Run(asio::io_context& io, const Options& o)
      : io_(io), o_(o), requests_(o.command, o.keys, o.seed), drain_timer_(io) {}

  bool Connect() {
    tcp::resolver resolver(io_);
    boost::system::error_code ec;
    auto endpoints = resolver.resolve(o_.host, o_.port, ec);
    for (int i = 0; i < o_.clients && !ec; ++i) {
      auto c = std::make_unique<Connection>(io_);
      asio::connect(c->socket, endpoints, ec);
      if (!ec) c->socket.set_option(tcp::no_delay(true), ec);  // as hiredis: no Nagle delay
      c->next_index = static_cast<uint64_t>(i);
      connections_.push_back(std::move(c));
    }
    if (ec)
      std::fprintf(stderr, "sluice-paced: %s:%s: %s\n", o_.host.c_str(), o_.port.c_str(),
                   ec.message().c_str());
    return !ec;
  }

  void Start() {
    start_ = Clock::now() + std::chrono::milliseconds(20);
    window_start_ = start_ + Seconds(o_.warmup);
    window_end_ = window_start_ + Seconds(o_.seconds);
    open_ = connections_.size();
    for (auto& c : connections_) {
      asio::co_spawn(io_, Send(*c), asio::detached);
      asio::co_spawn(io_, Receive(*c), asio::detached);
    }
    // Replies still missing this long after the last send are given up on.
    drain_timer_.expires_at(window_end_ + Seconds(o_.drain));
    drain_timer_.async_wait([this](boost::system::error_code ec) {
      if (!ec) GiveUp();
    });
  }

  void PrintJson() const {
    // Completions over the measured window, or up to the last reply if replies trail the
    // window: a server that falls behind shows an achieved rate below the offered one.
    double span =
        std::chrono::duration<double>(std::max(last_reply_, window_end_) - window_start_).count();
    auto ms = [this](double p) { return histogram_.ValueAtPercentile(p) / 1000.0; };
    std::printf(
        "{\"offered_rps\": %.1f, \"achieved_rps\": %.1f, \"clients\": %d, \"seconds\": %g, "
        "\"sent\": %llu, \"completed\": %llu, \"errors\": %llu, \"timeouts\": %llu, "
        "\"failed_connections\": %llu, \"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, "
        "\"p999_ms\": %.3f, \"max_ms\": %.3f, \"max_send_lag_ms\": %.3f}\n",
        o_.rate, static_cast<double>(completed_) / span, o_.clients, o_.seconds,
        static_cast<unsigned long long>(sent_), static_cast<unsigned long long>(completed_),
        static_cast<unsigned long long>(errors_), static_cast<unsigned long long>(timeouts_),
        static_cast<unsigned long long>(failed_connections_), ms(50), ms(90), ms(99), ms(99.9),
        histogram_.max() / 1000.0, max_send_lag_us_ / 1000.0);
    if (errors_) {
      std::fprintf(stderr, "sluice-paced: %llu error replies, the first: %s\n",
                   static_cast<unsigned long long>(errors_), first_error_.c_str());
    }
    if (timeouts_ || failed_connections_) {
      std::fprintf(stderr, "sluice-paced: %llu requests unanswered, %llu connections failed\n",
                   static_cast<unsigned long long>(timeouts_),
                   static_cast<unsigned long long>(failed_connections_));
    }
  }

 private:
  static Clock::duration Seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }

  // Request j (over all connections) is due at start + j / rate: connection i sends requests
  // i, i + N, i + 2N ..., so the connections take turns at even intervals.
  TimePoint Due(uint64_t index) const {
    return start_ +
           std::chrono::nanoseconds(std::llround(static_cast<double>(index) * 1e9 / o_.rate));
  }

  bool Measured(TimePoint scheduled) const {
    return scheduled >= window_start_ && scheduled < window_end_;
  }

  static uint64_t Micros(Clock::duration d) {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    return ns <= 0 ? 0 : static_cast<uint64_t>(ns + 999) / 1000;
  }

  asio::awaitable<void> Send(Connection& c) {
    asio::steady_timer timer(io_);
    std::string out;
    boost::system::error_code ec;
    for (TimePoint due = Due(c.next_index); due < window_end_ && !giving_up_;) {
      timer.expires_at(due);
      co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      // Everything already due goes out now in one write: a late wake-up (a busy loop, a slow
      // write) catches up instead of shifting the rest of the schedule.
      TimePoint now = Clock::now();
      out.clear();
      for (; due <= now && due < window_end_; due = Due(c.next_index)) {
        requests_.AppendTo(out);
        c.in_flight.push_back(due);
        if (Measured(due)) {
          ++sent_;
          max_send_lag_us_ = std::max(max_send_lag_us_, Micros(now - due));
        }
        c.next_index += connections_.size();
      }
      co_await asio::async_write(c.socket, asio::buffer(out),
                                 asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
    }
    c.done_sending = true;
    if (c.in_flight.empty() || ec) Close(c);
  }

  asio::awaitable<void> Receive(Connection& c) {
    std::vector<char> in(kReadChunk);
    size_t len = 0;
    boost::system::error_code ec;
    while (true) {
      if (in.size() - len < kReadChunk / 2) in.resize(in.size() * 2);
      size_t n = co_await c.socket.async_read_some(asio::buffer(in.data() + len, in.size() - len),
                                                   asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
      TimePoint now = Clock::now();  // one arrival time for all replies in this read
      len += n;
      size_t pos = 0;
      while (true) {
        ScanResult r = ScanReply(std::string_view(in.data() + pos, len - pos));
        if (r.status == ScanStatus::kNeedMore) break;
        if (r.status == ScanStatus::kBad || c.in_flight.empty()) {
          std::fprintf(stderr, "sluice-paced: unparsable or unexpected reply\n");
          ec = asio::error::invalid_argument;
          break;
        }
        OnReply(c.in_flight.front(), now,
                r.error ? std::string_view(in.data() + pos, r.length) : std::string_view());
        c.in_flight.pop_front();
        pos += r.length;
      }
      if (ec) break;
      std::memmove(in.data(), in.data() + pos, len - pos);  // a partial reply, if any
      len -= pos;
      if (c.done_sending && c.in_flight.empty()) break;
    }
    // Not by us: the server closed it or sent garbage, and what is unanswered never will be.
    if (ec && !giving_up_ && !(c.done_sending && c.in_flight.empty())) ++failed_connections_;
    Close(c);
    if (--open_ == 0) drain_timer_.cancel();
  }

  void OnReply(TimePoint scheduled, TimePoint now, std::string_view error) {
    if (!Measured(scheduled)) return;
    histogram_.Record(Micros(now - scheduled));
    ++completed_;
    last_reply_ = now;
    if (!error.empty() && errors_++ == 0) {
      first_error_ = std::string(error.substr(0, std::min<size_t>(error.size() - 2, 200)));
    }
  }

  // The drain time is over: each measured request still unanswered counts as a timeout and is
  // recorded with its age now, a lower bound, so a stalled server cannot shorten its own tail
  // by not replying.
  void GiveUp() {
    giving_up_ = true;
    TimePoint now = Clock::now();
    for (auto& c : connections_) {
      for (TimePoint scheduled : c->in_flight) {
        if (!Measured(scheduled)) continue;
        histogram_.Record(Micros(now - scheduled));
        ++timeouts_;
      }
      c->in_flight.clear();
      Close(*c);
    }
  }

  static void Close(Connection& c) {
    boost::system::error_code ignored;
    c.socket.close(ignored);
  }

  asio::io_context& io_;
  const Options& o_;
  RequestTemplate requests_;
  std::vector<std::unique_ptr<Connection>> connections_;
  asio::steady_timer drain_timer_;
  TimePoint start_, window_start_, window_end_, last_reply_;
  size_t open_ = 0;
  bool giving_up_ = false;
  LatencyHistogram histogram_;
  uint64_t sent_ = 0, completed_ = 0, errors_ = 0, timeouts_ = 0, failed_connections_ = 0;
  uint64_t max_send_lag_us_ = 0;
  std::string first_error_;
};

}  // namespace
}  // namespace sluice::bench

int main(int argc, char** argv) {
  using namespace sluice::bench;
  Options options;
  if (!ParseOptions(argc, argv, &options)) {
    std::fputs(kUsage.data(), stderr);
    return 2;
  }
  boost::asio::io_context io(1);
  Run run(io, options);
  if (!run.Connect()) return 1;
  run.Start();
  io.run();
  run.PrintJson();
  return 0;
}
