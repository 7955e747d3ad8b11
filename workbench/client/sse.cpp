#include "client/sse.hpp"

namespace kwb::client {

void SseParser::feed(std::string_view chunk, const EventFn& on_event) {
  for (char c : chunk) {
    if (m_skip_lf) {
      m_skip_lf = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      m_skip_lf = c == '\r';
      line(m_buf, on_event);
      m_buf.clear();
    } else {
      m_buf += c;
    }
  }
}

void SseParser::line(std::string_view l, const EventFn& on_event) {
  if (l.empty()) {  // dispatch
    if (m_has_data) {
      if (!m_cur.id.empty()) m_last_id = m_cur.id;
      on_event(m_cur);
    }
    m_cur = SseEvent{};
    m_has_data = false;
    return;
  }
  if (l.front() == ':') {
    ++m_comments;
    return;
  }
  auto colon = l.find(':');
  std::string_view field = l.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : l.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (m_has_data) m_cur.data += '\n';
    m_cur.data += value;
    m_has_data = true;
  } else if (field == "event") {
    m_cur.event = value;
  } else if (field == "id") {
    m_cur.id = value;
  }  // "retry" and unknown fields are ignored
}

}  // namespace kwb::client
