#pragma once
// The HTTP front door's limits (docs/security.md, "The HTTP API"); `kwb serve` flags set some.
#include <chrono>
#include <cstddef>

namespace kwb::api {

struct HeadLimits {
  size_t max_header_bytes = 32 << 10;  // the whole block, request line included
  size_t max_line_bytes = 8 << 10;     // one header line (cpp-httplib's own limit)
  size_t max_body_bytes = 1 << 20;     // on the wire, whatever the transfer encoding
};

struct GateLimits {
  HeadLimits head;
  std::chrono::milliseconds header_timeout{10000};  // request line + headers, from their first byte
  std::chrono::milliseconds body_timeout{30000};    // the whole body, from the end of the headers
  std::chrono::milliseconds idle_timeout{5000};     // keep-alive: until the next request's first byte
  std::chrono::milliseconds write_timeout{10000};   // each write of a response
  size_t max_connections = 4096;                    // open at once, all addresses
  size_t max_per_address = 256;                     // open at once from one address
  size_t max_requests_per_connection = 1000;        // then Connection: close
  size_t request_threads = 16;                      // workers for ordinary requests
  size_t max_queued = 1024;                         // complete requests waiting for a worker
  size_t max_streams = 256;                         // SSE streams and long-polls at once
};

// Failed logins (a token that is unknown or revoked) per client address: a token bucket of
// `burst` failures refilled at `per_s`; an address past it is answered 429 without checking.
struct LoginLimits {
  double per_s = 0.2;
  double burst = 10;
};

}  // namespace kwb::api
