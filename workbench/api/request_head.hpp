#pragma once
// What the connection gate checks of a request before any thread or body buffer is spent on it:
// the request line and headers (sizes, Content-Length, Transfer-Encoding, Content-Encoding), and
// where a chunked body ends. Refusals carry the HTTP status and a JSON error type and message.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "api/http_limits.hpp"

namespace kwb::api {

struct Refusal {
  int status = 400;
  std::string type, message;
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. Retry-After
};

struct RequestHead {
  std::string method, target, path, query;
  size_t head_bytes = 0;                  // the header block, final CRLF CRLF included
  std::optional<uint64_t> content_length; // a body of this many bytes
  bool chunked = false;                   // Transfer-Encoding: chunked
  bool expect_continue = false;           // Expect: 100-continue
  bool close = false;                     // Connection: close, or HTTP/1.0 without keep-alive
  std::string authorization;
  bool has_body() const { return chunked || content_length.value_or(0) > 0; }
};

// The end of the header block in `buf` (offset just past CRLF CRLF), or nullopt if not there yet.
// `from`: where to resume the search (bytes before it were searched already).
std::optional<size_t> find_head_end(std::string_view buf, size_t from = 0);

// Parses and checks a complete header block (as found by find_head_end).
std::variant<RequestHead, Refusal> parse_request_head(std::string_view block, const HeadLimits& limits);

// The body a header block announces with one plain decimal Content-Length, whatever else is
// wrong with it (a refused request's body still comes: the gate discards it after its answer).
std::optional<uint64_t> announced_body_bytes(std::string_view block);

// Finds the end of a chunked body fed in pieces, without decoding it (the HTTP library decodes).
class ChunkedScanner {
 public:
  enum class State { more, done, bad };
  // Scans `data` (the body's bytes from the start, growing); `consumed()` is where the body ends
  // once done. Resumes where the previous call stopped.
  State scan(std::string_view body);
  size_t consumed() const { return m_pos; }
  const std::string& error() const { return m_error; }

 private:
  enum class Phase { size_line, data, data_crlf, trailer };
  Phase m_phase = Phase::size_line;
  size_t m_pos = 0;
  uint64_t m_left = 0;
  std::string m_error;
};

// True for requests that may stay open for long (SSE streams, ?wait= long-polls, POST /mcp): they run in a
// pool of their own so that they never hold the request workers.
bool is_long_lived(const RequestHead& head);

}  // namespace kwb::api
