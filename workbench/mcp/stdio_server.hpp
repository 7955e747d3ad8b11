#pragma once
// The stdio transport (`kwb mcp`, docs/mcp.md "stdio"): newline-delimited JSON-RPC messages on
// stdin, responses and request-scoped notifications on stdout (nothing else is written there;
// logs go to stderr). Requests run concurrently (a get_verdict that waits does not hold up the
// others); notifications/cancelled stops one. The process is one 2025-11-25 session after an
// initialize; 2026-07-28 requests (with _meta) are served before and after it alike.
#include <chrono>
#include <functional>
#include <memory>

#include "mcp/protocol.hpp"

namespace kwb::mcp {

struct StdioOptions {
  int in_fd = 0, out_fd = 1;
  size_t max_line_bytes = 4u << 20;  // a longer line is answered with a parse error and skipped
  size_t max_concurrent = 32;        // requests running at once; more wait for a free slot
  // At the end of stdin, requests still running may finish (and be answered) within this long;
  // then they are cancelled (a get_verdict waiting for a verdict stops within a poll, 10 s).
  std::chrono::milliseconds drain_grace{10000};
};

// Serves until stdin ends; then lets running requests finish within drain_grace, cancels the
// rest, waits for them, and returns 0.
// `make_rest` gives each request its REST API (one HTTP connection each).
int serve_stdio(const std::function<std::unique_ptr<Rest>()>& make_rest, const StdioOptions& opt = {});

}  // namespace kwb::mcp
