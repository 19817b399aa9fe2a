#pragma once

// Which commits are known to be on disk. Under appendfsync always a commit's WAL write returns
// at once and its fdatasync runs on the WAL syncer's thread, while the loop goes on with other
// connections; a reply goes out only once a sync that started after every commit before it
// has finished (Session::Flush). Commits made while a sync runs share the next one, so the
// disk sees one fdatasync per sync's duration however many connections write: group commit,
// without the loop thread waiting for the disk.

// First, alone (clang-format would sort it after Boost): Asio 1.18's awaitable.hpp uses
// std::exchange without including <utility>.
#include <utility>

// The rest, sorted.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>

namespace sluice::server {

class DurableCommits {
 public:
  explicit DurableCommits(const boost::asio::any_io_executor& executor);

  // A commit reached the WAL (not yet the disk).
  void NoteCommitted() { ++committed_; }
  // Commits are counted from 1; a mark covers every commit up to and including it.
  uint64_t committed() const { return committed_; }
  // Whether no reply has to wait for any commit so far: each is durable, or given up.
  bool AllSettled() const { return settled_ >= committed_; }

  // Every commit up to `mark` is on disk (a sync that started after it finished).
  void MarkDurable(uint64_t mark);
  // The commits up to `mark` are not known to be on disk and never will be: the replies
  // waiting for them give up (a failed sync that flushing the memtables could not make up
  // for). Later replies no longer wait for them.
  void Abandon(uint64_t mark);

  // Waits until every commit up to `mark` is settled: true when they are durable (or were
  // given up before the wait began), false when they are given up during it.
  boost::asio::awaitable<bool> WaitUntilDurable(uint64_t mark);

 private:
  void WakeWaiters();

  uint64_t committed_ = 0;
  uint64_t durable_ = 0;
  uint64_t abandoned_ = 0;
  uint64_t settled_ = 0;  // the larger of the two
  // Never expires: every waiter waits on it, and a change cancels the wait of them all.
  boost::asio::steady_timer changed_;
};

}  // namespace sluice::server
