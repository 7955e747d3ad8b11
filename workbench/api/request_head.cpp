#include "api/request_head.hpp"

#include <strings.h>

#include <algorithm>
#include <cctype>

namespace kwb::api {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// Shown in messages: at most 40 characters, control characters escaped.
std::string shown(std::string_view v) {
  std::string out;
  for (char c : v.substr(0, 40)) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += '?';
    else out += c;
  }
  return v.size() > 40 ? out + "..." : out;
}

Refusal refuse(int status, std::string type, std::string message) { return {status, std::move(type), std::move(message)}; }

}  // namespace

std::optional<size_t> find_head_end(std::string_view buf, size_t from) {
  size_t start = from >= 3 ? from - 3 : 0;
  size_t p = buf.find("\r\n\r\n", start);
  if (p == std::string_view::npos) return std::nullopt;
  return p + 4;
}

std::variant<RequestHead, Refusal> parse_request_head(std::string_view block, const HeadLimits& limits) {
  RequestHead h;
  h.head_bytes = block.size();
  if (block.size() > limits.max_header_bytes)
    return refuse(431, "header_too_large", "request line and headers larger than " +
                                               std::to_string(limits.max_header_bytes) + " bytes");
  size_t eol = block.find("\r\n");
  std::string_view line = block.substr(0, eol);
  if (line.size() > limits.max_line_bytes)
    return refuse(414, "uri_too_long", "request line longer than " + std::to_string(limits.max_line_bytes) + " bytes");
  size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1)
    return refuse(400, "bad_request", "malformed request line \"" + shown(line) + "\" (expected METHOD TARGET HTTP/1.1)");
  h.method = std::string(line.substr(0, sp1));
  h.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  std::string_view version = line.substr(sp2 + 1);
  if (h.method.empty() || !std::all_of(h.method.begin(), h.method.end(), is_token_char))
    return refuse(400, "bad_request", "malformed method \"" + shown(h.method) + "\"");
  if (h.target.empty() || h.target[0] != '/' || h.target.find(' ') != std::string::npos)
    return refuse(400, "bad_request", "malformed request target \"" + shown(h.target) + "\" (expected a path)");
  if (version != "HTTP/1.1" && version != "HTTP/1.0")
    return refuse(505, "http_version_not_supported", "HTTP version \"" + shown(version) + "\" (HTTP/1.1 or 1.0 only)");
  size_t q = h.target.find('?');
  h.path = h.target.substr(0, q);
  if (q != std::string::npos) h.query = h.target.substr(q + 1);
  bool keep_alive = version == "HTTP/1.1";

  std::optional<std::string> length_text;
  bool has_te = false;
  size_t pos = eol + 2;
  while (pos < block.size()) {
    size_t end = block.find("\r\n", pos);
    if (end == pos) break;  // the empty line ending the block
    std::string_view hl = block.substr(pos, end - pos);
    pos = end + 2;
    if (hl.size() > limits.max_line_bytes)
      return refuse(431, "header_too_large", "a header line is longer than " + std::to_string(limits.max_line_bytes) +
                                                 " bytes (\"" + shown(hl) + "\")");
    if (hl.front() == ' ' || hl.front() == '\t')
      return refuse(400, "invalid_header", "folded header lines are not allowed (\"" + shown(hl) + "\")");
    size_t colon = hl.find(':');
    std::string_view name = colon == std::string_view::npos ? std::string_view() : hl.substr(0, colon);
    if (name.empty() || !std::all_of(name.begin(), name.end(), is_token_char))
      return refuse(400, "invalid_header", "malformed header line \"" + shown(hl) + "\" (expected Name: value)");
    std::string_view value = trim(hl.substr(colon + 1));
    if (iequals(name, "Content-Length")) {
      if (value.empty() || value.size() > 19 || !std::all_of(value.begin(), value.end(), ::isdigit))
        return refuse(400, "invalid_header", "Content-Length: expected a decimal byte count, got \"" + shown(value) + "\"");
      if (length_text && *length_text != value)
        return refuse(400, "invalid_header", "Content-Length given twice with different values");
      length_text = std::string(value);
    } else if (iequals(name, "Transfer-Encoding")) {
      if (has_te || !iequals(value, "chunked"))
        return refuse(501, "unsupported_transfer_encoding",
                      "Transfer-Encoding: only \"chunked\" is supported, got \"" + shown(value) + "\"");
      has_te = true;
      h.chunked = true;
    } else if (iequals(name, "Content-Encoding")) {
      // A compressed body would be inflated by the HTTP library past every size limit.
      if (!value.empty() && !iequals(value, "identity"))
        return refuse(415, "unsupported_content_encoding",
                      "Content-Encoding: request bodies must not be compressed, got \"" + shown(value) + "\"");
    } else if (iequals(name, "Expect")) {
      if (!iequals(value, "100-continue"))
        return refuse(417, "expectation_failed", "Expect: only 100-continue is supported");
      h.expect_continue = true;
    } else if (iequals(name, "Connection")) {
      if (iequals(value, "close")) h.close = true;
      if (iequals(value, "keep-alive")) keep_alive = true;
    } else if (iequals(name, "Authorization")) {
      h.authorization = std::string(value);
    }
  }
  if (!keep_alive) h.close = true;
  if (length_text && has_te)
    return refuse(400, "invalid_header", "Content-Length and Transfer-Encoding must not both be given");
  if (length_text) {
    uint64_t n = std::stoull(*length_text);
    if (n > limits.max_body_bytes)
      return refuse(413, "too_large", "request body of " + *length_text + " bytes is larger than the limit (" +
                                          std::to_string(limits.max_body_bytes) + " bytes)");
    h.content_length = n;
  }
  return h;
}

std::optional<uint64_t> announced_body_bytes(std::string_view block) {
  std::optional<uint64_t> found;
  size_t pos = block.find("\r\n");
  while (pos != std::string_view::npos && pos + 2 < block.size()) {
    pos += 2;
    size_t end = block.find("\r\n", pos);
    std::string_view hl = block.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end;
    size_t colon = hl.find(':');
    if (colon == std::string_view::npos || !iequals(hl.substr(0, colon), "Content-Length")) continue;
    std::string_view value = trim(hl.substr(colon + 1));
    if (value.empty() || value.size() > 19 || !std::all_of(value.begin(), value.end(), ::isdigit)) return std::nullopt;
    uint64_t n = std::stoull(std::string(value));
    if (found && *found != n) return std::nullopt;  // two different lengths: none can be trusted
    found = n;
  }
  return found;
}

ChunkedScanner::State ChunkedScanner::scan(std::string_view body) {
  constexpr size_t k_max_size_line = 1024;
  while (true) {
    switch (m_phase) {
      case Phase::size_line: {
        size_t eol = body.find("\r\n", m_pos);
        if (eol == std::string_view::npos) {
          if (body.size() - m_pos > k_max_size_line) return m_error = "chunk size line too long", State::bad;
          return State::more;
        }
        std::string_view line = body.substr(m_pos, eol - m_pos);
        size_t digits = 0;
        uint64_t size = 0;
        while (digits < line.size() && std::isxdigit(static_cast<unsigned char>(line[digits]))) {
          if (digits == 15) return m_error = "chunk size too large", State::bad;
          char c = line[digits++];
          size = size * 16 + uint64_t(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10));
        }
        if (digits == 0 || (digits < line.size() && line[digits] != ';' && line[digits] != ' ' && line[digits] != '\t'))
          return m_error = "malformed chunk size line \"" + std::string(line.substr(0, 40)) + "\"", State::bad;
        m_pos = eol + 2;
        m_left = size;
        m_phase = size == 0 ? Phase::trailer : Phase::data;
        break;
      }
      case Phase::data: {
        uint64_t take = std::min<uint64_t>(m_left, body.size() - m_pos);
        m_pos += take;
        m_left -= take;
        if (m_left > 0) return State::more;
        m_phase = Phase::data_crlf;
        break;
      }
      case Phase::data_crlf:
        if (body.size() - m_pos < 2) return State::more;
        if (body.substr(m_pos, 2) != "\r\n") return m_error = "chunk data not followed by CRLF", State::bad;
        m_pos += 2;
        m_phase = Phase::size_line;
        break;
      case Phase::trailer:
        if (body.size() - m_pos < 2) return State::more;
        if (body.substr(m_pos, 2) != "\r\n") return m_error = "chunked trailers are not supported", State::bad;
        m_pos += 2;
        return State::done;
    }
  }
}

bool is_long_lived(const RequestHead& head) {
  // An MCP request may wait (get_verdict's wait_s, submit_kernel following its stages).
  if (head.method == "POST" && head.path == "/mcp") return true;
  if (head.method != "GET") return false;
  constexpr std::string_view prefix = "/v1/candidates/";
  if (head.path.size() > prefix.size() + 7 && head.path.starts_with(prefix) && head.path.ends_with("/events")) return true;
  size_t pos = 0;
  while (pos <= head.query.size()) {
    size_t amp = head.query.find('&', pos);
    if (amp == std::string::npos) amp = head.query.size();
    std::string_view kv = std::string_view(head.query).substr(pos, amp - pos);
    if (kv == "wait" || kv.starts_with("wait=")) return true;
    pos = amp + 1;
  }
  return false;
}

}  // namespace kwb::api
