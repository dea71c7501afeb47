// MCP over stdio: one JSON-RPC message per line on stdin and stdout, logs on stderr.
#pragma once

#include <chrono>
#include <cstddef>

#include "mcp/server.hpp"

namespace skillrt::transport {

struct StdioOptions {
  size_t max_line_bytes = 16u << 20;
  // The longest the reader polls stdin for the next request before it blocks in read(). The
  // window adapts (transport/detail/poll_window.hpp): it opens only while requests keep
  // arriving within it, so a client that pauses between calls costs no polling. Zero: never.
  std::chrono::microseconds idle_poll{50};
};

// Serves one session on stdin/stdout until stdin ends and every call in flight has answered.
// Protocol output goes to a private duplicate of fd 1, and fd 1 itself is pointed at stderr, so a
// plugin that prints (printf, std::cout, a child process) never corrupts the stream. Returns the
// process exit code.
int run_stdio(mcp::Server& server, const StdioOptions& options);

// The same loop on given descriptors, without touching fd 1; what run_stdio uses, and what tests
// drive through pipes.
int serve_stdio_fds(mcp::Server& server, int in_fd, int out_fd, const StdioOptions& options);

}  // namespace skillrt::transport
