#pragma once
// Server-Sent Events parsing (the text/event-stream format of the WHATWG HTML standard):
// "field: value" lines, events separated by a blank line, ':' lines are comments (heartbeats).
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace kwb::client {

struct SseEvent {
  std::string id;
  std::string event = "message";
  std::string data;  // data lines joined by '\n'
};

class SseParser {
 public:
  using EventFn = std::function<void(const SseEvent&)>;
  // Feeds a chunk of the stream (any split); calls on_event for each complete event.
  void feed(std::string_view chunk, const EventFn& on_event);
  size_t comments() const { return m_comments; }  // heartbeats seen
  const std::string& last_event_id() const { return m_last_id; }

 private:
  void line(std::string_view l, const EventFn& on_event);

  std::string m_buf;
  SseEvent m_cur;
  bool m_has_data = false;
  bool m_skip_lf = false;  // a '\r' ended the previous line; a following '\n' belongs to it
  size_t m_comments = 0;
  std::string m_last_id;
};

}  // namespace kwb::client
