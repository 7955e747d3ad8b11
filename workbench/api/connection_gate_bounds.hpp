#pragma once
// The connection gate's fixed bounds (connection_gate.hpp): how a refused connection is drained,
// how often deadlines are swept, how long a request worker waits for a connection's next request.
// Not settings: the limits a deployment sets are GateLimits (http_limits.hpp).
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace kwb::api::gate {

using Clock = std::chrono::steady_clock;
// After a refusal the connection is closed once what the client still sends is read and
// discarded (docs/api.md "Limits"), so that an HTTP/1.1 client that writes its whole body before
// it reads (Python's http.client) reads the answer instead of a reset: the rest of a body
// announced with Content-Length, up to k_drain_announced bytes, then at once; otherwise (chunked,
// no complete head) up to k_drain_bytes until the client stops. A drain ends after k_drain_idle
// without a byte, and after k_drain_time in all.
inline constexpr size_t k_drain_bytes = 4 << 20;
inline constexpr uint64_t k_drain_announced = uint64_t(256) << 20;
inline constexpr std::chrono::milliseconds k_drain_idle{2000};
inline constexpr std::chrono::milliseconds k_drain_time{30000};
inline constexpr size_t k_max_draining = 256;                 // refusals at accept drain only while fewer
inline constexpr std::chrono::milliseconds k_sweep_every{100};
inline constexpr std::chrono::milliseconds k_linger{2};       // a worker waits this long for the next request
inline constexpr int k_max_in_a_row = 32;                     // requests of one connection on one worker

}  // namespace kwb::api::gate
