#include "transport/stdio_transport.hpp"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/stdout_aside.hpp"
#include "transport/detail/poll_window.hpp"

namespace skillrt::transport {

namespace {

// Writes whole lines to the protocol descriptor; messages from different threads never
// interleave. While corked (the reader has more requests at hand), lines gather and go out in
// writes of a few answers each, so a client with many requests in flight is woken once per group,
// not per answer.
// After the peer goes away, writes are dropped quietly: the reader sees EOF next.
class LineWriter {
 public:
  explicit LineWriter(int fd) : fd_(fd) {}

  void write_line(const std::string& message) {
    std::lock_guard lock(mutex_);
    if (broken_) return;
    if (corked_.load(std::memory_order_relaxed)) {
      gathered_ += message;
      gathered_ += '\n';
      if (++gathered_lines_ >= kMaxGatheredLines || gathered_.size() >= kMaxGathered) {
        flush_locked();
      }
      return;
    }
    // The message and its newline in one system call, without copying the message.
    char newline = '\n';
    std::array<iovec, 2> parts{iovec{const_cast<char*>(message.data()), message.size()},
                               iovec{&newline, 1}};
    write_all(parts.data(), parts.size());
  }

  // Called once per line while more are at hand, so it skips the lock when already corked. Only
  // the reading thread corks; should a hand-over uncork in between, the lines go out at once.
  void cork() {
    if (corked_.load(std::memory_order_relaxed)) return;
    std::lock_guard lock(mutex_);
    corked_.store(true, std::memory_order_relaxed);
  }

  void uncork() {
    std::lock_guard lock(mutex_);
    corked_.store(false, std::memory_order_relaxed);
    flush_locked();
  }

 private:
  static constexpr size_t kMaxGathered = 64 * 1024;
  // Answers go out in groups this size rather than all at the end of a read: a client with 16
  // requests in flight then works on the first answers while later ones are computed, instead
  // of waiting for the whole batch (bench/mcp: 16 in flight 1.5x the throughput of whole-batch
  // writes when a call cost about 4 us of CPU). Once calls cost about 2 us, groups of eight did
  // better than four (16 in flight, six alternating rounds: 437k against 363k calls/s).
  static constexpr size_t kMaxGatheredLines = 8;

  void flush_locked() {
    if (gathered_.empty() || broken_) return;
    iovec part{gathered_.data(), gathered_.size()};
    write_all(&part, 1);
    gathered_.clear();
    gathered_lines_ = 0;
  }

  void write_all(iovec* parts, size_t count) {
    size_t index = 0;
    while (index < count) {
      const ssize_t n = ::writev(fd_, &parts[index], static_cast<int>(count - index));
      if (n < 0) {
        if (errno == EINTR) continue;
        broken_ = true;
        return;
      }
      size_t done = static_cast<size_t>(n);
      while (index < count && done >= parts[index].iov_len) {
        done -= parts[index].iov_len;
        ++index;
      }
      if (index < count) {
        parts[index].iov_base = static_cast<char*>(parts[index].iov_base) + done;
        parts[index].iov_len -= done;
      }
    }
  }

  int fd_;
  std::mutex mutex_;
  bool broken_ = false;
  std::atomic<bool> corked_{false};  // written under the lock
  std::string gathered_;
  size_t gathered_lines_ = 0;
};

std::string limit_message(size_t limit) {
  return "Invalid Request: a message exceeds the stdio line limit of " + std::to_string(limit) +
         " bytes and was dropped; send smaller messages (the server keeps serving)";
}

// Splits the input into lines and hands each to the server. The reading thread is lent to the
// calls it starts (mcp::Release): a quick call runs right there, with no hop between threads.
// When a call turns out slow, a new thread takes over reading where the old one stopped, and
// the old one leaves once its call is done.
class LineReader {
 public:
  LineReader(mcp::Server& server, std::shared_ptr<mcp::Session> session, mcp::Reply reply,
             std::shared_ptr<LineWriter> writer, int fd, const StdioOptions& options)
      : server_(server),
        session_(std::move(session)),
        reply_(std::move(reply)),
        writer_(std::move(writer)),
        fd_(fd),
        max_line_(options.max_line_bytes),
        poll_(options.idle_poll),
        chunk_(64 * 1024, '\0') {}

  // Reads until the input ends; returns once every thread that read has stopped.
  void run() {
    read_loop(0);
    std::vector<Reader> threads;
    {
      std::unique_lock lock(mutex_);
      ended_.wait(lock, [this] { return finished_; });
      threads = std::move(threads_);
    }
    for (auto& reader : threads) reader.thread.join();
  }

 private:
  void read_loop(uint64_t generation) {
    const mcp::Release release = [this, generation] { hand_over(generation); };
    while (true) {
      std::string_view line;
      if (next_line(line)) {
        // More requests already at hand: their answers go out in groups.
        next_newline_ = buffer_.find('\n', start_);
        if (next_newline_ != std::string::npos) writer_->cork();
        handle_line(line, release);
        if (!still_reading(generation)) return;
        continue;
      }
      // Nothing whole at hand. At a line boundary, requests that came in meanwhile are taken
      // without waiting, so their answers join the group still gathering; only when none came
      // does the group go out, before waiting for the client. Inside a line (a large request
      // still arriving, or one being skipped for its size) the group goes out first: the rest
      // of that line may take a while.
      const bool at_boundary = !discarding_ && start_ == buffer_.size();
      const Taken taken = at_boundary ? take_waiting() : Taken::kNone;
      if (taken == Taken::kSome) continue;
      writer_->uncork();
      if (taken == Taken::kEnd || !fill()) break;
    }
    // A last message without its newline is still a message; a cut-off one gets a parse error.
    if (!discarding_ && start_ < buffer_.size()) {
      const std::string last = buffer_.substr(start_);
      start_ = scan_ = buffer_.size();
      handle_line(last, release);
      if (!still_reading(generation)) return;
    }
    std::lock_guard lock(mutex_);
    finished_ = true;
    ended_.notify_all();
  }

  // Called (once per slow call) while this generation's thread is inside that call.
  void hand_over(uint64_t generation) {
    std::lock_guard lock(mutex_);
    if (generation != generation_ || finished_) return;
    // Answers gathered so far must not wait for the slow call.
    writer_->uncork();
    // The slow call reads its request (its arguments) where it was read: that buffer stays with
    // it until its thread leaves read_loop(), and the next generation reads on in a new one
    // holding what was not handled yet. Moving a string keeps its heap block, so the call's view
    // stays valid. The thread inside the call touches none of these members until then.
    std::string rest = buffer_.substr(start_);
    retired_[generation] = std::move(buffer_);
    buffer_ = std::move(rest);
    scan_ -= start_;
    if (next_newline_ != std::string::npos) next_newline_ -= start_;
    start_ = 0;
    ++generation_;
    // Readers whose call is over are joined here, so a long session keeps only live ones.
    std::erase_if(threads_, [](Reader& reader) {
      if (!reader.done->load()) return false;
      reader.thread.join();
      return true;
    });
    auto done = std::make_shared<std::atomic<bool>>(false);
    threads_.push_back({std::thread([this, next = generation_.load(), done] {
                          read_loop(next);
                          done->store(true);
                        }),
                        done});
  }

  // Once per line: an atomic read, not the lock (hand_over() changes it under the lock). A
  // generation that is done lets go of the buffer hand_over() left it.
  bool still_reading(uint64_t generation) {
    if (generation == generation_.load(std::memory_order_acquire)) return true;
    std::lock_guard lock(mutex_);
    retired_.erase(generation);
    return false;
  }

  void handle_line(std::string_view line, const mcp::Release& release) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    server_.handle(session_, line, reply_, release);
  }

  // The next whole line of the buffer, or false when more input is needed. A line over the
  // limit is answered with an error naming the limit and skipped, however it arrives.
  bool next_line(std::string_view& line) {
    while (true) {
      const size_t newline =
          next_newline_ != std::string::npos ? next_newline_ : buffer_.find('\n', scan_);
      next_newline_ = std::string::npos;
      if (newline == std::string::npos) {
        scan_ = buffer_.size();
        if (!discarding_ && buffer_.size() - start_ > max_line_) {
          writer_->write_line(mcp::Server::framing_error(-32600, limit_message(max_line_)));
          discarding_ = true;
        }
        if (discarding_) {
          buffer_.clear();
          start_ = scan_ = 0;
        }
        return false;
      }
      const size_t begin = start_;
      start_ = scan_ = newline + 1;
      if (discarding_) {
        discarding_ = false;
        continue;
      }
      if (newline - begin > max_line_) {
        writer_->write_line(mcp::Server::framing_error(-32600, limit_message(max_line_)));
        continue;
      }
      line = std::string_view(buffer_).substr(begin, newline - begin);
      return true;
    }
  }

  // Drops the lines already handled from the buffer, before more input is appended.
  void compact() {
    if (start_ == 0) return;
    buffer_.erase(0, start_);
    scan_ -= start_;
    start_ = 0;
  }

  enum class Taken { kSome, kNone, kEnd };

  // Reads what is already waiting in the pipe, never blocking: preadv2() with RWF_NOWAIT leaves
  // the descriptor's flags alone (stdin may be shared). Where the kernel or the descriptor does
  // not support it, this says kNone from then on and fill() does all the reading.
  Taken take_waiting() {
    if (!nowait_) return Taken::kNone;
    compact();
    iovec part{chunk_.data(), chunk_.size()};
    while (true) {
      const ssize_t n = ::preadv2(fd_, &part, 1, -1, RWF_NOWAIT);
      if (n > 0) {
        buffer_.append(chunk_.data(), static_cast<size_t>(n));
        return Taken::kSome;
      }
      if (n == 0) return Taken::kEnd;
      if (errno == EINTR) continue;
      // EAGAIN: nothing waiting. Anything else (EOPNOTSUPP on older kernels, a descriptor that
      // cannot be read at an offset of -1): leave it to fill(), which reports real errors.
      if (errno != EAGAIN) nowait_ = false;
      return Taken::kNone;
    }
  }

  // Reads more input; false at its end.
  bool fill() {
    compact();
    // Poll for up to the adaptive window before read() blocks; neither preadv2() nor poll()
    // changes the descriptor's flags, as stdin may be shared with other processes.
    const auto idle_since = detail::PollWindow::Clock::now();
    if (nowait_) {
      // Polling by trying the read itself: what arrives is taken in the same system call.
      Taken taken = Taken::kNone;
      poll_.poll(idle_since, [&] {
        taken = take_waiting();
        // Also stops when preadv2() turned out unsupported: read() below blocks instead.
        return taken != Taken::kNone || !nowait_;
      });
      if (taken == Taken::kSome) {
        poll_.idle_ended(idle_since);
        return true;
      }
      if (taken == Taken::kEnd) return false;
    } else {
      pollfd pfd{fd_, POLLIN, 0};
      poll_.poll(idle_since, [&] { return ::poll(&pfd, 1, 0) != 0; });
    }
    while (true) {
      const ssize_t n = ::read(fd_, chunk_.data(), chunk_.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        spdlog::error("stdio: reading stdin failed: {}", std::strerror(errno));
        return false;
      }
      if (n == 0) return false;
      // The whole wait, polled or blocked, adjusts the window.
      poll_.idle_ended(idle_since);
      buffer_.append(chunk_.data(), static_cast<size_t>(n));
      return true;
    }
  }

  mcp::Server& server_;
  std::shared_ptr<mcp::Session> session_;
  mcp::Reply reply_;
  std::shared_ptr<LineWriter> writer_;
  int fd_;
  size_t max_line_;
  // Owned by the thread of the current generation.
  detail::PollWindow poll_;
  std::string chunk_;
  std::string buffer_;
  size_t start_ = 0;  // where the next line begins
  size_t scan_ = 0;   // where the search for its newline resumes
  // The next line's newline when read_loop() found it already; npos when not looked for.
  size_t next_newline_ = std::string::npos;
  bool nowait_ = true;       // take_waiting() may try preadv2(RWF_NOWAIT)
  bool discarding_ = false;  // inside a line that went over the limit

  struct Reader {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::mutex mutex_;
  std::condition_variable ended_;
  std::atomic<uint64_t> generation_{0};  // of the thread that reads now
  bool finished_ = false;
  // The buffers of generations handed over whose thread is still in its call, by generation.
  std::map<uint64_t, std::string> retired_;
  std::vector<Reader> threads_;
};

}  // namespace

int serve_stdio_fds(mcp::Server& server, int in_fd, int out_fd, const StdioOptions& options) {
  auto writer = std::make_shared<LineWriter>(out_fd);
  auto session = server.open_session([writer](std::string m) { writer->write_line(m); });
  // A bare pointer keeps the function small enough to be copied without allocating (every call
  // copies it); the writer outlives every reply: the session's notifier owns it too, and no call
  // replies after wait_idle() below.
  mcp::Reply reply = [w = writer.get()](std::string&& message, bool) {
    if (!message.empty()) w->write_line(message);
  };
  LineReader reader(server, session, std::move(reply), writer, in_fd, options);
  reader.run();
  server.wait_idle(session);
  return 0;
}

int run_stdio(mcp::Server& server, const StdioOptions& options) {
  // A client that exits early must not kill us with SIGPIPE mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  // From here on whatever writes to fd 1 (plugins, child processes) lands on stderr; the
  // protocol has the original stdout to itself.
  auto aside = StdoutAside::divert();
  if (!aside) {
    spdlog::error("stdio: {}", aside.error().message);
    return 1;
  }
  return serve_stdio_fds(server, STDIN_FILENO, aside->fd(), options);
}

}  // namespace skillrt::transport
