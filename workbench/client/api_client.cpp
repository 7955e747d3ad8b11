#include "client/api_client.hpp"

#include <strings.h>

#include <cctype>

#include <httplib.h>

namespace kwb::client {

struct ApiClient::Impl {
  httplib::Client http;
  explicit Impl(const std::string& url) : http(url) {}
};

namespace {

ApiError transport_error(const Endpoint& ep, httplib::Error e) {
  return {0, "unreachable",
          "cannot reach the kwb daemon at " + ep.url + " (" + httplib::to_string(e) +
              "); start it with `kwb serve`, or name another with --server / KWB_SERVER"};
}

// A 4xx/5xx reply: the server's {error:{type,message}} when present, and Retry-After.
ApiError http_error(int status, const std::string& body, const httplib::Headers& headers) {
  ApiError out{status, "http_error", body.substr(0, 200)};
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("error") && j["error"].is_object()) {
    const auto& e = j["error"];
    out.type = e.value("type", std::string("http_error"));
    out.message = e.value("message", std::string());
  }
  if (auto it = headers.find("Retry-After"); it != headers.end()) out.retry_after_s = std::atoi(it->second.c_str());
  return out;
}

HeaderList header_list(const httplib::Headers& h) {
  HeaderList out;
  for (const auto& [k, v] : h) out.emplace_back(k, v);
  return out;
}

}  // namespace

std::string ApiError::what() const {
  std::string head = status ? "HTTP " + std::to_string(status) + " " + type : type;
  return message.empty() ? head : head + ": " + message;
}

std::string Reply::header(const std::string& name) const {
  for (const auto& [k, v] : headers)
    if (::strcasecmp(k.c_str(), name.c_str()) == 0) return v;
  return {};
}

ApiClient::ApiClient(Endpoint ep, int read_timeout_s) : m_ep(std::move(ep)), m_impl(std::make_unique<Impl>(m_ep.url)) {
  auto& h = m_impl->http;
  h.set_keep_alive(true);
  h.set_tcp_nodelay(true);
  h.set_connection_timeout(5, 0);
  h.set_read_timeout(read_timeout_s, 0);
  h.set_write_timeout(30, 0);
  if (!m_ep.token.empty()) h.set_bearer_token_auth(m_ep.token);
}

ApiClient::~ApiClient() = default;
ApiClient::ApiClient(ApiClient&&) noexcept = default;
ApiClient& ApiClient::operator=(ApiClient&&) noexcept = default;

namespace {

ApiResult<Reply> to_reply(const Endpoint& ep, httplib::Result& r) {
  if (!r) return std::unexpected(transport_error(ep, r.error()));
  if (r->status >= 400) return std::unexpected(http_error(r->status, r->body, r->headers));
  Reply out;
  out.status = r->status;
  out.raw = std::move(r->body);
  out.headers = header_list(r->headers);
  out.body = nlohmann::json::parse(out.raw, nullptr, false);
  if (out.body.is_discarded()) out.body = nullptr;
  return out;
}

httplib::Headers to_headers(const HeaderList& extra) {
  httplib::Headers h;
  for (const auto& [k, v] : extra) h.emplace(k, v);
  return h;
}

}  // namespace

ApiResult<Reply> ApiClient::get(const std::string& path, const HeaderList& extra) {
  auto r = m_impl->http.Get(path, to_headers(extra));
  return to_reply(m_ep, r);
}

ApiResult<Reply> ApiClient::post(const std::string& path, const nlohmann::json& body, const HeaderList& extra) {
  auto r = m_impl->http.Post(path, to_headers(extra), body.dump(), "application/json");
  return to_reply(m_ep, r);
}

ApiResult<void> ApiClient::stream(const std::string& path, const HeaderList& extra,
                                  const std::function<bool(std::string_view)>& on_data) {
  int status = 0;
  std::string error_body;
  httplib::Headers response_headers;
  bool stopped = false, got_data = false;
  auto headers = to_headers(extra);
  headers.emplace("Accept", "text/event-stream");
  auto r = m_impl->http.Get(
      path, headers,
      [&](const httplib::Response& res) {
        status = res.status;
        response_headers = res.headers;
        return true;
      },
      [&](const char* data, size_t n) {
        if (status >= 400) {
          error_body.append(data, n);
          return true;
        }
        got_data = true;
        if (!on_data(std::string_view(data, n))) stopped = true;
        return !stopped;
      });
  if (stopped) return {};
  if (status >= 400) return std::unexpected(http_error(status, error_body, response_headers));
  if (!r) {
    if (status == 0 && !got_data) return std::unexpected(transport_error(m_ep, r.error()));
    return std::unexpected(ApiError{0, "stream_dropped", "event stream broke: " + httplib::to_string(r.error())});
  }
  return {};
}

std::string url_encode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace kwb::client
