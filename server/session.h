#pragma once

// One connection: a coroutine that reads into a buffer, parses every complete request,
// runs each on the loop thread, group-commits their writes, and sends all replies with one
// write. Replies of a batch are sent only after the batch's writes are in the WAL.

// clang-format off
#include <utility>  // Asio 1.18's awaitable.hpp uses std::exchange without including it
// clang-format on

#include <boost/asio/awaitable.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "resp/request_batch.h"
#include "resp/request_parser.h"
#include "resp/resp_writer.h"
#include "server/client.h"
#include "server/config.h"
#include "server/pubsub.h"

namespace sluice::server {

class SessionHost;
class Tracking;

class Session : public std::enable_shared_from_this<Session>, public PushSink {
 public:
  using Socket = boost::asio::generic::stream_protocol::socket;

  Session(SessionHost& host, Socket socket, Client client);

  void Start();
  // Closes the connection: at once when idle, after the pending write otherwise.
  void Close();

  // client-output-buffer-limit's soft limit: replies over `soft_bytes` unsent for longer
  // than `soft_seconds`.
  bool OverSoftOutputLimit(int64_t now_ms) const;
  // Closes at once, dropping unsent replies (a client that never reads).
  void ForceClose();
  // CLIENT KILL, the idle `timeout`, a peer gone: closes at once, dropping unsent replies, as
  // Redis frees a client; a client killing itself gets that command's reply first.
  void Kill();

  // Delivers the reply of the request this client is blocked on (BLOCK, a blocked pop, a
  // DBSIZE count), then lets the session go on with its buffered commands. `write_reply` runs
  // even when replies are off (CLIENT REPLY OFF), since it may do the work (a pop).
  void Answer(const std::function<void(resp::ReplyBuilder&)>& write_reply);
  // CLIENT PAUSE ended: a request it held runs now.
  void EndPause();

  // A message on a channel this client subscribed to: among its replies, in order, and sent at
  // once when the session waits (for input, an answer or the end of a pause).
  void DeliverMessage(const PubSubMessage& message) override;
  void DeliverMonitorLine(std::string_view line) override;
  void DeliverPush(std::string_view bytes, bool after_reply) override;
  bool Running() const override { return processing_; }
  bool HasUnsentReplies() const override { return UnsentBytes() != 0; }

  // Server's cron: a session waiting for input since before `idle_since_ms` (wall clock),
  // with nothing to send, gives back its read buffer and what its reply buffers hold past a
  // few KB (one large reply would otherwise stay allocated for as long as the connection).
  void ReleaseIdleBuffers(int64_t idle_since_ms);

  const Client& client() const { return client_; }
  Client& client() { return client_; }

 private:
  // Why ProcessInput stopped.
  enum class Stop { kNeedInput, kOutputFull, kBlocked, kPaused, kClose };

  boost::asio::awaitable<void> Run();
  // Runs every buffered command, flushing replies as needed and waiting out BLOCKs.
  // Returns false when the connection must close.
  boost::asio::awaitable<bool> DrainInput();
  // Commits the batch's writes, then sends every pending reply. False on a write error.
  boost::asio::awaitable<bool> Flush();
  // Writes what the socket takes of out_ now, without waiting: the bytes written (0 on
  // would-block), or an error in `ec`.
  size_t SendNow(boost::system::error_code& ec);
  // Whether requests parse as an authenticated client's (no pre-auth limits).
  bool ParsesAuthenticated() const;
  Stop ProcessInput();
  // Runs one parsed request; kNeedInput when the session may go on with the next.
  Stop RunRequest(std::span<const std::string_view> args);
  // Holds this request when a CLIENT PAUSE in force covers it (it stays in the input until
  // then): true, and CLIENT LIST's cmd= names it, as Redis's processCommand notes a command
  // before postponing it.
  bool HoldIfPaused(std::span<const std::string_view> args);
  // Waits until the pause that held a request ends (or the session closes). False on a
  // write error.
  boost::asio::awaitable<bool> WaitOutPause();
  // Waits for Answer(), EndPause() or Close(), sending meanwhile what is pushed to the
  // client. False on a write error.
  boost::asio::awaitable<bool> WaitForWake();
  void ReserveReadSpace();
  // Reads what the client sends while a request is held or a reply is being written.
  void WatchInput();
  // Closing, or closing once its reply is out (QUIT, a protocol error): it gets no message,
  // push or MONITOR line more, as Redis adds nothing to such a client.
  bool TakesNoMore() const { return closing_ || client_.close_after_reply; }
  // Sends a message or MONITOR line put in out_ (or closes a client past its output limit).
  void SendPushed();
  // A message for this client while its command runs: before that command's reply (after the
  // messages inserted there already), never inside a reply being built.
  void InsertBeforeReply(std::string_view bytes);
  // Reads what the socket holds without waiting; false when the client is gone (or over its
  // query buffer limit).
  bool ReadAvailableInput();
  // After a read: notes the interaction; false when the input passes the query buffer limit
  // (the connection closes before anything in it runs).
  bool TookInput();
  // CLIENT LIST's qbuf and qbuf-free, from the read buffer as it is now.
  void NoteQueryBuffer();
  // Replies and messages not yet taken by the client: what is left of a write under way, and
  // what came after it.
  size_t UnsentBytes() const;
  // Frees the read buffer (the input is empty); reads make one again (ReserveReadSpace).
  void DropReadBuffer();
  // CLIENT LIST's omem and the reply buffers' share of tot-mem.
  void NoteOutputBuffer();
  // After a write of `sent` bytes: a reply buffer far larger than that gives its memory back.
  void FitSentBuffers(size_t sent);
  // Whether this batch's replies must wait for a group commit (CommitBatch) first.
  bool RepliesWaitForCommit() const;
  // Waits for the group commit that carries this batch's writes, then replaces the replies
  // of its write commands with MISCONF errors if that commit failed.
  boost::asio::awaitable<void> CommitBatch();
  // Polls until commit `number` is done (a running script holds it back).
  boost::asio::awaitable<void> WaitForCommit(uint64_t number);
  // The replies of this batch's write commands become MISCONF errors.
  // Replaces with -MISCONF each write reply whose writes went with a commit that failed.
  void ReplaceFailedWriteReplies();
  // Whether the input passes the query buffer limit (logged: the connection closes).
  bool InputOverLimit() const;
  // client-output-buffer-limit's class for this client (pubsub once it subscribed).
  const OutputBufferLimit& OutputLimit() const;

  SessionHost& host_;
  Tracking& tracking_;  // client-side caching (host_.context()'s, reached without a call)
  Socket socket_;
  Client client_;
  resp::RequestParser parser_;
  resp::RequestBatch batch_;
  std::vector<std::string_view> args_;  // a request parsed on its own
  std::string in_;
  size_t in_len_ = 0;
  std::string out_;
  // What a write that did not complete at once is sending: out_ meanwhile collects what
  // comes next.
  std::string in_flight_;
  size_t in_flight_sent_ = 0;  // of in_flight_, what the client took
  // Where the running request's reply begins in out_: a message the request publishes to this
  // client is put there, before the reply (DeliverMessage).
  size_t reply_start_ = 0;
  resp::RespWriter writer_;
  // A write command's reply in out_, and the commits that carry what it staged: the next one
  // when it ran, and any made while it ran (SAVE in a transaction commits what came before
  // it). first_commit 0: no commit carries anything of it.
  struct WriteReply {
    size_t start;
    size_t end;
    uint64_t first_commit;
    uint64_t last_commit;
  };
  std::vector<WriteReply> write_replies_;
  boost::asio::steady_timer wake_;  // cancelled by Answer(), EndPause() or Close() while waiting
  bool waiting_for_answer_ = false;
  bool woken_ = false;     // by Answer() or EndPause(), not by a message to send
  bool watching_ = false;  // WatchInput's wait is pending
  bool held_ = false;      // in WaitForWake: input is watched, not run
  bool input_ended_ = false;  // a read met EOF (or an error)
  // CLIENT REPLY SKIP came before the request that blocked: its answer is dropped.
  bool answer_skipped_ = false;
  bool reading_ = false;  // waiting for input: a message cancels the read to be sent
  // The next wait for input is without a read buffer (a new or idle session).
  bool park_input_ = true;
  bool writing_ = false;  // a write is pending: input is watched, not run
  int64_t write_started_ms_ = 0;
  bool processing_ = false;  // inside ProcessInput: a Close() from a command waits
  bool closing_ = false;
};

}  // namespace sluice::server
