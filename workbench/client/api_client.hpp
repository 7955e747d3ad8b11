#pragma once
// A small HTTP client for the kwb daemon (docs/api.md): JSON in, JSON out, the server's
// {error:{type,message}} turned into an ApiError. One ApiClient holds one keep-alive connection and
// is not thread-safe: give each thread its own.
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/endpoint.hpp"

namespace kwb::client {

struct ApiError {
  int status = 0;        // HTTP status; 0 when no response came back
  std::string type;      // the server's error.type, or "unreachable", "stream_dropped", "bad_response"
  std::string message;
  int retry_after_s = 0;  // from Retry-After on a 429
  std::string what() const;  // "HTTP 422 unknown_op: op: unknown op 'x' (known: ...)"
};

template <class T>
using ApiResult = std::expected<T, ApiError>;

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct Reply {
  int status = 0;
  nlohmann::json body;  // null when the body is not JSON (see raw)
  std::string raw;
  HeaderList headers;
  std::string header(const std::string& name) const;  // "" when absent
};

class ApiClient {
 public:
  // read_timeout_s must exceed the longest ?wait= the caller uses and the SSE heartbeat.
  explicit ApiClient(Endpoint ep, int read_timeout_s = 75);
  ~ApiClient();
  ApiClient(ApiClient&&) noexcept;
  ApiClient& operator=(ApiClient&&) noexcept;

  ApiResult<Reply> get(const std::string& path, const HeaderList& extra = {});
  ApiResult<Reply> post(const std::string& path, const nlohmann::json& body, const HeaderList& extra = {});
  // GET a stream (text/event-stream): on_data receives each chunk and returns false to stop
  // reading (a normal end). Fails with the server's error for a 4xx/5xx, "unreachable" when no
  // connection could be made, "stream_dropped" when the connection broke mid-stream.
  ApiResult<void> stream(const std::string& path, const HeaderList& extra,
                         const std::function<bool(std::string_view)>& on_data);
  const Endpoint& endpoint() const { return m_ep; }

 private:
  struct Impl;
  Endpoint m_ep;
  std::unique_ptr<Impl> m_impl;
};

// Percent-encodes a query parameter value.
std::string url_encode(std::string_view s);

}  // namespace kwb::client
