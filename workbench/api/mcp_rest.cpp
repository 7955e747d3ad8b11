#include "api/mcp_rest.hpp"

#include <algorithm>
#include <cstring>
#include <strings.h>

namespace kwb::api {

namespace {

// Reads a request held in memory and keeps what httplib writes.
class MemoryStream : public httplib::Stream {
 public:
  MemoryStream(std::string request, std::string peer_ip) : m_in(std::move(request)), m_peer(std::move(peer_ip)) {}
  bool is_readable() const override { return m_pos < m_in.size(); }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    size_t n = std::min(size, m_in.size() - m_pos);
    std::memcpy(ptr, m_in.data() + m_pos, n);
    m_pos += n;
    return ssize_t(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    m_out.append(ptr, size);
    return ssize_t(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = m_peer;
    port = 0;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 0;
  }
  socket_t socket() const override { return 0; }
  const std::string& out() const { return m_out; }

 private:
  std::string m_in, m_peer, m_out;
  size_t m_pos = 0;
};

// Status line, headers, and a Content-Length body (every JSON route answers so).
mcp::RestReply parse_response(const std::string& raw) {
  mcp::RestReply r;
  auto head_end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/1.", 0) != 0 || head_end == std::string::npos) {
    r.raw = "in-process request: no HTTP response";
    return r;
  }
  r.status = std::atoi(raw.c_str() + raw.find(' ') + 1);
  std::string body = raw.substr(head_end + 4);
  size_t pos = raw.find("\r\n") + 2;
  while (pos < head_end) {
    size_t eol = raw.find("\r\n", pos);
    std::string line = raw.substr(pos, eol - pos);
    if (::strncasecmp(line.c_str(), "Content-Length:", 15) == 0) body.resize(std::min(body.size(), size_t(std::atoll(line.c_str() + 15))));
    pos = eol + 2;
  }
  r.raw = body;
  r.body = nlohmann::json::parse(body, nullptr, false);
  if (r.body.is_discarded()) r.body = nullptr;
  return r;
}

}  // namespace

mcp::RestReply InProcessRest::get(const std::string& target) { return send("GET", target, "", {}); }

mcp::RestReply InProcessRest::post(const std::string& target, const nlohmann::json& body, const mcp::RestHeaders& headers) {
  return send("POST", target, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), headers);
}

mcp::RestReply InProcessRest::send(const std::string& method, const std::string& target, const std::string& body,
                                   const mcp::RestHeaders& headers) {
  std::string req = method + " " + target + " HTTP/1.1\r\nHost: kwb\r\n";
  if (!m_authorization.empty()) req += "Authorization: " + m_authorization + "\r\n";
  for (const auto& [k, v] : headers)
    if (v.find_first_of("\r\n") == std::string::npos) req += k + ": " + v + "\r\n";
  if (method == "POST") req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  MemoryStream strm(std::move(req), m_peer_ip);
  bool closed = false;
  m_http.serve(strm, true, closed);
  return parse_response(strm.out());
}

}  // namespace kwb::api
