#include "server/session.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cstring>
#include <span>
#include <string_view>
#include <utility>

#include "resp/error_messages.h"
#include "server/acl/registry.h"
#include "server/dispatcher.h"
#include "server/script_bridge.h"
#include "server/session_host.h"

namespace sluice::server {
namespace asio = boost::asio;

namespace {

constexpr size_t kReadChunk = 16 * 1024;
// What a reply buffer keeps between batches. One that held a larger reply gives the rest back
// once sent, unless the batch just sent was about that large too (a client that keeps asking
// for large replies keeps its buffer), and when the client goes idle.
constexpr size_t kKeptOutputBytes = 64 * 1024;

// Frees `buffer` when it is empty and holds far more than the `sent` bytes just written.
void FitSentBuffer(std::string& buffer, size_t sent) {
  if (buffer.empty() && buffer.capacity() > std::max(kKeptOutputBytes, 4 * sent)) {
    std::string().swap(buffer);
  }
}
// Past this much unsent output the session stops executing and flushes first, so a
// pipelining client slows down instead of growing the server (contract section 7).
constexpr size_t kOutputPauseBytes = 1 << 20;
// Before authentication a client may buffer at most this much (as Redis).
constexpr size_t kUnauthenticatedQueryLimit = 1 << 20;
// How many pipelined requests are parsed ahead, and their keys prefetched, before they run
// (about twice a redis-benchmark -P 16 batch).
constexpr size_t kParsedAhead = 32;

// What client-output-buffer-limit counts of `unsent` bytes, as Redis 7.0: not the first
// 16 KB (its client's own reply buffer, PROTO_REPLY_CHUNK_BYTES), the rest in the 16 KB
// blocks it allocates for them. So a small hard limit ("normal 1kb 0 0") closes clients at
// their first reply past 16 KB, not at every reply (INFO, or even +OK, locked everyone out).
uint64_t LimitedOutputBytes(size_t unsent) {
  constexpr size_t kReplyBuffer = 16 * 1024;
  if (unsent <= kReplyBuffer) return 0;
  return (unsent - kReplyBuffer + kReplyBuffer - 1) / kReplyBuffer * kReplyBuffer;
}

}  // namespace

Session::Session(SessionHost& host, Socket socket, Client client)
    : host_(host),
      tracking_(host.context().tracking),
      socket_(std::move(socket)),
      client_(std::move(client)),
      writer_(&out_, client_.protocol),
      wake_(socket_.get_executor()) {
  client_.push_sink = this;
  // Synchronous reads and writes (ReadAvailableInput, SendNow) never wait for the peer.
  boost::system::error_code ignored;
  socket_.non_blocking(true, ignored);
}

void Session::Start() {
  asio::co_spawn(socket_.get_executor(), [self = shared_from_this()] { return self->Run(); },
                 asio::detached);
}

void Session::Close() {
  closing_ = true;
  client_.close_after_reply = true;
  if (waiting_for_answer_) {
    wake_.cancel();  // it flushes what it has, then closes
    return;
  }
  // A session blocked in a read is woken by closing; one that is writing closes afterwards.
  if (!writing_ && !processing_) {
    boost::system::error_code ignored;
    socket_.close(ignored);
  }
}

void Session::Kill() {
  if (processing_) {
    Close();  // its own command (CLIENT KILL of itself): after that reply
  } else {
    ForceClose();
  }
}

size_t Session::UnsentBytes() const { return in_flight_.size() - in_flight_sent_ + out_.size(); }

void Session::FitSentBuffers(size_t sent) {
  // Both: the large reply may have gone out through in_flight_, and the small ones after it
  // never touch that buffer again.
  FitSentBuffer(out_, sent);
  FitSentBuffer(in_flight_, sent);
  NoteOutputBuffer();
}

void Session::DropReadBuffer() {
  std::string().swap(in_);
  NoteQueryBuffer();
}

void Session::NoteOutputBuffer() {
  client_.output_buffer_bytes = UnsentBytes();
  client_.output_buffer_allocated = out_.capacity() + in_flight_.capacity();
}

void Session::ReleaseIdleBuffers(int64_t idle_since_ms) {
  // Only a session that waits (for input, or blocked or paused in WaitForWake) with nothing
  // to send, and has waited since then.
  if (!(reading_ || held_) || processing_ || writing_ || closing_ || !out_.empty() ||
      client_.last_interaction_ms >= idle_since_ms) {
    return;
  }
  FitSentBuffers(0);  // both are empty: each keeps kKeptOutputBytes at most
  // (An empty in_ has no read buffer: it was given back already. Its capacity is not 0.)
  if (in_len_ != 0 || in_.empty()) return;
  if (held_) {
    // Its request ran (a blocked one copied what it waits with) and WatchInput reads into a
    // buffer it makes first: nothing points into this one.
    DropReadBuffer();
  } else if (!park_input_) {
    park_input_ = true;
    boost::system::error_code ignored;
    socket_.cancel(ignored);  // Run gives up the read buffer and waits without one
  }
}

const OutputBufferLimit& Session::OutputLimit() const {
  return OutputLimitFor(*host_.context().config, client_.Subscriptions() > 0);
}

bool Session::OverSoftOutputLimit(int64_t now_ms) const {
  const OutputBufferLimit& limit = OutputLimit();
  // Messages that came during the write wait behind it: they count too.
  return writing_ && limit.soft_bytes != 0 &&
         LimitedOutputBytes(UnsentBytes()) > limit.soft_bytes &&
         now_ms - write_started_ms_ > limit.soft_seconds * 1000;
}

void Session::ForceClose() {
  closing_ = true;
  client_.close_after_reply = true;
  wake_.cancel();
  boost::system::error_code ignored;
  socket_.close(ignored);  // also aborts a pending write
}

void Session::EndPause() {
  if (client_.paused == 0) return;
  woken_ = true;
  wake_.cancel();
}

void Session::Answer(const std::function<void(resp::ReplyBuilder&)>& write_reply) {
  // A closing session answers nothing: a pop for a client that is gone would lose its element.
  if (!client_.blocked || closing_) return;
  client_.blocked = false;
  // Answering is an interaction (Redis counts its writes to a client): without this, the idle
  // `timeout` could close a client that waited longer than it, between this answer and its
  // being sent.
  client_.last_interaction_ms = WallMillis();
  if (client_.reply_off || std::exchange(answer_skipped_, false)) {
    // The reply is dropped, as Redis drops it at write time; what it does (a pop) still happens.
    std::string dropped;
    resp::RespWriter discard(&dropped, client_.protocol);
    write_reply(discard);
  } else {
    size_t start = out_.size();
    write_reply(writer_);
    // What the answer wrote (a blocked pop's pop) goes to the log with the next commit, which
    // another client's session may make before this one flushes.
    const uint64_t commit = host_.HasStagedWrites() ? host_.NextCommitNumber() : 0;
    write_replies_.push_back({start, out_.size(), commit, commit});
  }
  woken_ = true;
  wake_.cancel();
}

void Session::DeliverMessage(const PubSubMessage& message) {
  if (TakesNoMore()) return;
  // Published by this client's own command (a PUBLISH, its script's, a keyspace event of its
  // write): it goes before that command's reply, never inside a reply being built.
  std::string own;
  resp::RespWriter push(processing_ ? &own : &out_, client_.protocol);
  using Kind = PubSubMessage::Kind;
  const bool from_pattern = message.kind == Kind::kPatternMessage;
  push.Push(from_pattern ? 4 : 3);
  push.Bulk(from_pattern                          ? "pmessage"
            : message.kind == Kind::kShardMessage ? "smessage"
                                                  : "message");
  if (from_pattern) push.Bulk(message.pattern);
  push.Bulk(message.channel);
  push.Bulk(message.payload);
  if (processing_) InsertBeforeReply(own);
  SendPushed();
}

void Session::InsertBeforeReply(std::string_view bytes) {
  reply_start_ = std::min(reply_start_, out_.size());
  out_.insert(reply_start_, bytes);
  reply_start_ += bytes.size();
}

void Session::DeliverPush(std::string_view bytes, bool after_reply) {
  // CLIENT REPLY OFF / SKIP does not silence them, as Redis 7.0.15.
  if (TakesNoMore()) return;
  if (processing_ && !after_reply) {  // before the running command's reply, as DeliverMessage
    InsertBeforeReply(bytes);
  } else {
    out_.append(bytes);
  }
  SendPushed();
}

void Session::DeliverMonitorLine(std::string_view line) {
  if (TakesNoMore()) return;
  resp::RespWriter(&out_, client_.protocol).Simple(line);
  SendPushed();
}

void Session::SendPushed() {
  const uint64_t hard_limit = OutputLimit().hard_bytes;
  const size_t unsent = UnsentBytes();
  client_.output_buffer_bytes = unsent;
  host_.context().buffer_peaks.NoteOutput(unsent);
  if (hard_limit != 0 && LimitedOutputBytes(unsent) > hard_limit) {
    spdlog::warn(
        "Closing client id={} addr={}: {} bytes of unsent replies and messages pass the hard "
        "limit of client-output-buffer-limit",
        client_.id, client_.addr, unsent);
    ForceClose();
    return;
  }
  if (reading_) {
    boost::system::error_code ignored;
    socket_.cancel(ignored);  // Run sends it, then reads again
  } else if (waiting_for_answer_) {
    wake_.cancel();  // WaitForWake sends it, then waits again
  }
}

bool Session::InputOverLimit() const {
  const uint64_t limit = host_.context().config->client_query_buffer_limit;
  const uint64_t allowed =
      client_.authenticated ? limit : std::min<uint64_t>(limit, kUnauthenticatedQueryLimit);
  if (in_len_ <= allowed) return false;
  spdlog::warn("Closing client id={} addr={}: query buffer limit reached ({} bytes)", client_.id,
               client_.addr, in_len_);
  return true;
}

void Session::NoteQueryBuffer() {
  client_.query_buffer_bytes = in_len_;
  host_.context().buffer_peaks.NoteInput(in_len_);
  client_.query_buffer_free = in_.size() - in_len_;
}

bool Session::TookInput() {
  client_.last_interaction_ms = WallMillis();
  park_input_ = false;
  NoteQueryBuffer();
  // Checked after each read, before anything in the buffer runs, as Redis: a request that
  // takes the buffer past the limit is never executed, even when this read completed it.
  return !InputOverLimit();
}

asio::awaitable<void> Session::Run() {
  ServerContext& ctx = host_.context();
  boost::system::error_code ec;
  while (!closing_) {
    // Messages that came while no reply was due (a subscriber waiting for input) go out first.
    // What was pushed during that write goes out next, after the input already there has run:
    // a steady stream of messages neither waits nor keeps the client's own commands waiting.
    if (!out_.empty()) {
      const size_t had = in_len_;
      if (!co_await Flush()) break;
      const bool pushed_meanwhile = !out_.empty();
      // Only the query buffer limit closes the session here. After an EOF, whether the watch
      // met it or this read does, the input taken still runs and what is owed still goes
      // out; the read below meets the EOF again. (Closing at an EOF this read met dropped a
      // subscriber's pending messages when its write ended before the watch saw the EOF.)
      if (pushed_meanwhile && !input_ended_ && !ReadAvailableInput() && !input_ended_) break;
      // Input taken during the write (WatchInput), or read just now, runs first.
      const bool took_input = in_len_ != had;
      if (took_input && (!TookInput() || !co_await DrainInput())) break;
      if (pushed_meanwhile || took_input) continue;
    }
    if (park_input_ && in_len_ == 0) {
      // New, or idle (ReleaseIdleBuffers): no read buffer until the client sends, as Redis
      // allocates a query buffer only for input, so thousands of idle connections cost little.
      park_input_ = false;
      DropReadBuffer();
      reading_ = true;
      co_await socket_.async_wait(asio::socket_base::wait_read,
                                  asio::redirect_error(asio::use_awaitable, ec));
      reading_ = false;
      if (closing_) break;
      if (ec == asio::error::operation_aborted) continue;  // a message to send woke it
      if (ec) break;
    }
    ReserveReadSpace();

    reading_ = true;
    size_t n = co_await socket_.async_read_some(
        asio::buffer(in_.data() + in_len_, in_.size() - in_len_),
        asio::redirect_error(asio::use_awaitable, ec));
    reading_ = false;
    if (closing_) break;
    if (ec == asio::error::operation_aborted) continue;  // a message to send woke it
    if (ec) break;
    in_len_ += n;
    ctx.stats.total_net_input_bytes += n;
    if (!TookInput() || !co_await DrainInput()) break;
  }
  boost::system::error_code ignored;
  socket_.close(ignored);
  host_.OnSessionClosed(client_.id);
}

void Session::ReserveReadSpace() {
  // Room for one more chunk; for a large bulk the buffer grows with the data that actually
  // arrives (at most doubling), so a bare `$<huge>` header allocates nothing.
  size_t want = kReadChunk;
  size_t expected = parser_.bytes_expected();
  if (expected > in_len_) want = std::max(kReadChunk, std::min(expected - in_len_, in_len_));
  if (in_.size() - in_len_ < want) in_.resize(in_len_ + want);
}

void Session::WatchInput() {
  // While a request waits (BLOCK, a pause) or a reply is being written, the session runs
  // nothing more, but it takes what the client sends, up to its query buffer limit: that
  // tells a client that left (so it leaves a queue) from one that pipelines more requests
  // (kept for later), and a client that writes a whole pipeline before it reads a reply
  // (redis-py) can finish writing, where both sides waited on each other for good. One
  // watch at a time: each wait and write arms it, and an earlier one's may still be pending.
  if (watching_) return;
  watching_ = true;
  socket_.async_wait(asio::socket_base::wait_read,
                     [self = shared_from_this()](const boost::system::error_code& ec) {
                       self->watching_ = false;
                       if (!(self->held_ || self->writing_) ||
                           ec == asio::error::operation_aborted) {
                         return;
                       }
                       if (ec || !self->ReadAvailableInput()) {
                         // A client that stopped sending while its replies are written still
                         // gets them; Run meets its EOF again once they are out.
                         if (!ec && self->input_ended_ && !self->held_) return;
                         // Gone while held (or over its query buffer limit): closed at once,
                         // as Redis frees a client at EOF (a pending write of its messages is
                         // dropped, and it is never served a pop).
                         self->Kill();
                         return;
                       }
                       // Sending is an interaction: the idle `timeout` spares a client whose
                       // replies wait while it writes on, as Redis counts each read. (The read
                       // checked the query buffer limit already.)
                       self->TookInput();
                       self->WatchInput();
                     });
}

bool Session::ReadAvailableInput() {
  ReserveReadSpace();
  boost::system::error_code ec;
  size_t n = socket_.read_some(asio::buffer(in_.data() + in_len_, in_.size() - in_len_), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) return true;
  if (ec || n == 0) {  // EOF or error: the client is gone, or at least sends no more
    input_ended_ = true;
    return false;
  }
  in_len_ += n;
  host_.context().stats.total_net_input_bytes += n;
  return !InputOverLimit();
}

asio::awaitable<bool> Session::DrainInput() {
  for (;;) {
    processing_ = true;
    Stop stop = ProcessInput();
    processing_ = false;
    const size_t unrun = in_len_;
    if (!co_await Flush()) co_return false;
    if (stop == Stop::kClose || client_.close_after_reply) co_return false;
    // Input taken during the write (WatchInput) runs now: the client may wait for its replies.
    if (stop == Stop::kNeedInput && in_len_ == unrun) co_return true;
    if (stop == Stop::kPaused) {
      if (!co_await WaitOutPause() || closing_) co_return false;
      continue;
    }
    if (stop == Stop::kBlocked && client_.blocked) {
      if (!co_await WaitForWake()) co_return false;
      if (!co_await Flush()) co_return false;  // the answer, even when closing
      if (closing_) co_return false;
    }
    // kOutputFull, or an answered BLOCK: go on with the buffered commands.
  }
}

bool Session::HoldIfPaused(std::span<const std::string_view> args) {
  const ServerContext& ctx = host_.context();
  if (!ctx.pause.InForce(ctx.clock->NowMillis())) return false;
  return HoldRequest(ctx.pause.mode, *ctx.commands, client_, args,
                     [&ctx](const CommandSpec& spec, Args request) {
                       return ctx.scripts->DeclaresWrites(spec, request);
                     });
}

asio::awaitable<bool> Session::WaitOutPause() {
  // The flush before may have let the pause end (EndPause found this session not paused).
  if (!host_.context().pause.InForce(host_.context().clock->NowMillis())) co_return true;
  client_.paused = ++host_.context().pause.held;
  const bool sent = co_await WaitForWake();
  client_.paused = 0;
  co_return sent;
}

asio::awaitable<bool> Session::WaitForWake() {
  woken_ = false;
  held_ = true;  // WatchInput reads on meanwhile, and sees a client leave
  WatchInput();
  bool sent = true;
  while (sent && !woken_ && !closing_) {
    // A client that waits still gets its messages and invalidations at once, as Redis writes
    // to a blocked or paused client (held back, they would pile up to the output limit).
    if (!out_.empty()) {
      sent = co_await Flush();
      continue;
    }
    boost::system::error_code ec;
    wake_.expires_at(asio::steady_timer::time_point::max());
    waiting_for_answer_ = true;  // Close() wakes it
    co_await wake_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    waiting_for_answer_ = false;
  }
  held_ = false;
  co_return sent;
}

asio::awaitable<bool> Session::Flush() {
  if (out_.empty()) {
    write_replies_.clear();  // (an answer whose reply was dropped)
    // No reply waits for them (CLIENT REPLY OFF), but the writes go to the log all the same,
    // with the batch, rather than wait for whoever commits next. A busy script's batch
    // commits when it ends.
    if (host_.HasStagedWrites() && !host_.context().script.active) co_await CommitBatch();
    host_.ReleaseExpiryHorizon();
    co_return true;
  }
  bool wait_for_commit = RepliesWaitForCommit();
  if (!wait_for_commit) {
    // A batch that wrote nothing still answers after the loop turn's other batches, as one
    // that wrote answers after the turn's commit, and as Redis writes every reply just before
    // its loop sleeps: a client takes a turn's replies in one wake-up. Sent batch by batch,
    // they woke a client that slept between them once a batch (61 wake-ups per 1,000 calls
    // of a read-only script at pipeline 16, against Redis's 2.5), a tenth of the loop's time.
    const size_t before_turn = out_.size();
    co_await asio::post(socket_.get_executor(), asio::use_awaitable);
    // What came meanwhile may hang on the turn's writes: a blocked request's answer (a pop
    // another client's push served), a message about another client's write.
    wait_for_commit = out_.size() != before_turn && RepliesWaitForCommit();
  }
  if (wait_for_commit) co_await CommitBatch();
  host_.ReleaseExpiryHorizon();
  // Another session's commit, DBSIZE's or SAVE's may have carried some of the writes.
  ReplaceFailedWriteReplies();
  write_replies_.clear();
  const OutputBufferLimit& limit = OutputLimit();
  if (limit.hard_bytes != 0 && LimitedOutputBytes(out_.size()) > limit.hard_bytes) {
    spdlog::warn("Closing client id={} addr={}: {} bytes of replies pass the hard limit of "
                 "client-output-buffer-limit",
                 client_.id, client_.addr, out_.size());
    co_return false;
  }
  client_.output_buffer_bytes = out_.size();
  host_.context().buffer_peaks.NoteOutput(UnsentBytes());
  boost::system::error_code ec;
  const size_t sent = SendNow(ec);
  host_.context().stats.total_net_output_bytes += out_.size();
  if (ec || sent == out_.size()) {
    const size_t batch = out_.size();
    out_.clear();
    FitSentBuffers(batch);
    co_return !ec;
  }
  // The rest goes from in_flight_, so out_ takes what comes meanwhile (messages, a blocked
  // request's answer) in order, and no append moves the bytes being written.
  in_flight_.swap(out_);
  out_.clear();
  in_flight_sent_ = sent;
  client_.output_buffer_bytes = UnsentBytes();
  write_started_ms_ = WallMillis();  // only a pending write is timed
  writing_ = true;
  WatchInput();  // the client may be writing too, and read nothing until it is done
  // Piece by piece: every piece the client takes is an interaction, as Redis counts its
  // writes to a client, so the idle `timeout` never closes one that reads a long reply; and
  // what it took no longer counts against its output limit, as Redis frees each block sent.
  while (!ec && in_flight_sent_ < in_flight_.size()) {
    in_flight_sent_ += co_await socket_.async_write_some(
        asio::buffer(in_flight_.data() + in_flight_sent_, in_flight_.size() - in_flight_sent_),
        asio::redirect_error(asio::use_awaitable, ec));
    client_.last_interaction_ms = WallMillis();
    client_.output_buffer_bytes = UnsentBytes();
  }
  writing_ = false;
  const size_t batch = in_flight_.size();
  in_flight_.clear();
  in_flight_sent_ = 0;
  FitSentBuffers(batch);
  co_return !ec;
}

size_t Session::SendNow(boost::system::error_code& ec) {
  // Replies mostly fit in the socket's send buffer: one non-blocking send, as Redis writes,
  // and no asynchronous operation with its trip through the scheduler and the coroutine.
  size_t sent = socket_.write_some(asio::buffer(out_), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) {
    ec.clear();
    return 0;
  }
  return ec ? 0 : sent;
}

Session::Stop Session::RunRequest(std::span<const std::string_view> args) {
  if (args.empty()) return Stop::kNeedInput;  // "*0" or an empty line: nothing, as in Redis
  // Client-side caching's work before and after the command: while no client tracks keys, a
  // test of one value before and of two after (the command may turn tracking on).
  reply_start_ = out_.size();
  if (tracking_.clients() != 0) [[unlikely]] tracking_.BeforeCommand();
  const uint64_t first_commit = host_.NextCommitNumber();
  writer_.set_protocol(client_.protocol);
  Dispatched dispatched = host_.Dispatch(client_, args, writer_);
  // Past the messages the command published to this client (DeliverMessage put them there).
  const size_t reply_start = reply_start_;
  writer_.set_protocol(client_.protocol);  // HELLO may have switched it
  if (client_.reply_off || client_.reply_skip) {
    out_.resize(reply_start);  // CLIENT REPLY OFF or SKIP: this reply is not sent
    dispatched.writes = false;  // nor replaced by -MISCONF if its writes cannot be logged
  }
  // A request that blocks keeps its SKIP for its answer, as Redis resets a client's reply flags
  // only once its command is done.
  answer_skipped_ = client_.blocked && client_.reply_skip;
  client_.reply_skip = std::exchange(client_.reply_skip_next, false);
  if (dispatched.writes) {
    write_replies_.push_back({reply_start, out_.size(), first_commit, host_.NextCommitNumber()});
  }
  if (!tracking_.Idle()) [[unlikely]] tracking_.AfterCommand(client_);
  if (client_.close_after_reply) return Stop::kClose;
  if (client_.blocked) return Stop::kBlocked;
  return Stop::kNeedInput;
}

bool Session::ParsesAuthenticated() const {
  // Before authentication the parser's limits apply, unless the default user needs no
  // password now (Redis's authRequired).
  const AclRegistry* acl = host_.context().acl;
  return client_.authenticated || (acl != nullptr && acl->DefaultNeedsNoAuth());
}

Session::Stop Session::ProcessInput() {
  // CONFIG SET proto-max-bulk-len applies to connections already open.
  resp::ParserLimits limits = parser_.limits();
  limits.max_bulk_len = host_.context().config->proto_max_bulk_len;
  parser_.set_limits(limits);
  // After a request that may have set proto-max-bulk-len (CONFIG SET, also inline, in MULTI
  // or a script): true, with the parser's limits updated, when it did.
  auto bulk_limit_changed = [&] {
    if (host_.context().config->proto_max_bulk_len == limits.max_bulk_len) return false;
    limits.max_bulk_len = host_.context().config->proto_max_bulk_len;
    parser_.set_limits(limits);
    return true;
  };
  const ClientPause& pause = host_.context().pause;
  size_t pos = 0;
  Stop stop = Stop::kNeedInput;
  while (pos < in_len_ && stop == Stop::kNeedInput) {
    if (out_.size() >= kOutputPauseBytes) {
      stop = Stop::kOutputFull;
      break;
    }
    const std::string_view input(in_.data() + pos, in_len_ - pos);
    const bool authenticated = ParsesAuthenticated();
    parser_.set_authenticated(authenticated);
    batch_.Parse(parser_, input, kParsedAhead);
    if (batch_.size() == 0) {
      // An inline request, or one that is incomplete or malformed: on its own.
      size_t consumed = 0;
      auto result = parser_.Parse(input, &consumed, &args_);
      if (result == resp::RequestParser::Result::kNeedMore) break;
      if (result == resp::RequestParser::Result::kError) {
        spdlog::debug("Protocol error from client id={} addr={}: {}", client_.id, client_.addr,
                      parser_.error());
        ReplyCountedError(host_.context().stats.errors, writer_, Err(parser_.error()));
        client_.close_after_reply = true;
        stop = Stop::kClose;
        break;
      }
      if (pause.Set() && HoldIfPaused(args_)) {
        stop = Stop::kPaused;
        break;
      }
      pos += consumed;
      stop = RunRequest(args_);
      bulk_limit_changed();  // the parser holds nothing past this request
      continue;
    }
    std::array<std::string_view, kParsedAhead> keys;
    // One key alone is looked up right away: prefetching it would only hash it twice.
    if (const size_t found = batch_.FirstKeys(keys); found > 1) {
      host_.PrefetchKeys(std::span(keys.data(), found));
    }
    const size_t start = pos;
    size_t ran = 0;
    bool parsing_changed = false;
    while (ran < batch_.size() && stop == Stop::kNeedInput && !parsing_changed) {
      if (out_.size() >= kOutputPauseBytes) {
        stop = Stop::kOutputFull;
        break;
      }
      if (pause.Set() && HoldIfPaused(batch_.args(ran))) {
        stop = Stop::kPaused;
        break;
      }
      pos = start + batch_.end(ran);
      stop = RunRequest(batch_.args(ran++));
      // AUTH, HELLO AUTH, RESET or CONFIG SET may have changed how what follows parses.
      parsing_changed = bulk_limit_changed() || ParsesAuthenticated() != authenticated;
    }
    // What was parsed ahead under the old rules is parsed again under the new: the parser
    // forgets the progress (or the failure) it reached past the requests that ran.
    if (parsing_changed) parser_.Reset();
  }
  // Stopped before the end (a batch left unfinished included): whatever the parser reached
  // past `pos` was judged under the limits of now, and the input is parsed again from `pos`
  // next time (another client's CONFIG SET may come first).
  if (stop != Stop::kNeedInput) parser_.Reset();
  // Drop the consumed requests; a partial one moves to the front (the parser keeps its
  // progress relative to the request's start).
  if (pos > 0) {
    std::memmove(in_.data(), in_.data() + pos, in_len_ - pos);
    in_len_ -= pos;
  }
  if (in_.size() > 4 * kReadChunk && in_len_ < kReadChunk) {
    in_.resize(kReadChunk);
    in_.shrink_to_fit();
  }
  NoteQueryBuffer();  // what ran no longer counts as qbuf
  return stop;
}

bool Session::RepliesWaitForCommit() const {
  // While a busy script polls the loop, the staged writes are the script's (and those of
  // sessions that yielded before it started): they commit with the EVAL's batch. A batch
  // with no write of its own was refused BUSY, or ran a command that reads no keys, so it
  // answers at once.
  const bool script_writes_only =
      host_.context().script.active && write_replies_.empty();
  // Otherwise staged writes (this batch's, or another session's that it may have read) hold
  // every reply until they are in the WAL.
  return host_.HasStagedWrites() && !script_writes_only;
}

asio::awaitable<void> Session::CommitBatch() {
  // Yield once, so every session with input ready in this loop iteration stages its writes;
  // the first one back commits them all.
  const uint64_t number = host_.NextCommitNumber();
  co_await asio::post(socket_.get_executor(), asio::use_awaitable);
  if (SyncsEveryCommit(*host_.context().config)) {
    // Once more under always: what arrived while the previous commit's fdatasync held the
    // loop is read by the reactor's next poll, whose handlers queue behind this turn; a
    // second turn lets them join this commit rather than wait for a sync of their own, as
    // Redis's loop takes in all one poll found before its fsync. A turn costs about a
    // microsecond against a sync's 100; everysec has no sync to share, and yields once.
    co_await asio::post(socket_.get_executor(), asio::use_awaitable);
  }
  if (!host_.CommitDone(number)) (void)host_.CommitWrites();  // read back by commit number
  if (!host_.CommitDone(number)) co_await WaitForCommit(number);
}

asio::awaitable<void> Session::WaitForCommit(uint64_t number) {
  // Not committed: a script is running (its batch commits when it ends). Poll gently. (Its
  // own coroutine, so that the timer is not in the frame of every commit.)
  asio::steady_timer pause(socket_.get_executor());
  while (!host_.CommitDone(number)) {
    pause.expires_after(std::chrono::milliseconds(1));
    boost::system::error_code ignored;
    co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    (void)host_.CommitWrites();
  }
}

void Session::ReplaceFailedWriteReplies() {
  auto failed = [&](const WriteReply& reply) {
    if (reply.first_commit == 0) return false;
    for (uint64_t commit = reply.first_commit; commit <= reply.last_commit; ++commit) {
      if (!host_.CommitOutcome(commit).ok()) return true;
    }
    return false;
  };
  if (std::none_of(write_replies_.begin(), write_replies_.end(), failed)) return;
  // What did not reach the log may not be acknowledged.
  std::string patched;
  size_t copied_to = 0;
  resp::RespWriter error_writer(&patched, client_.protocol);
  const Status misconf(Code::kMisconf, std::string(resp::kMisconfMsg));
  for (const WriteReply& reply : write_replies_) {
    if (!failed(reply)) continue;
    patched.append(out_, copied_to, reply.start - copied_to);
    ReplyCountedError(host_.context().stats.errors, error_writer, misconf);
    copied_to = reply.end;
  }
  patched.append(out_, copied_to, std::string::npos);
  out_.swap(patched);
}

}  // namespace sluice::server
