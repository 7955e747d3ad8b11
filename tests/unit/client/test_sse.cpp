// client::SseParser: the text/event-stream format fed in pieces of any size (a byte at a time
// included), CR, LF and CRLF line ends, comments (heartbeats), multi-line data, ids and types.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "client/sse.hpp"

namespace kwb::client {
namespace {

const std::string k_stream =
    ": heartbeat\r\n\r\n"
    "id: 1\r\nevent: state\r\ndata: {\"state\":\"queued\"}\r\n\r\n"
    "retry: 1000\nunknown: ignored\ndata: line one\ndata:line two\n\n"
    "event: lonely\n\n"  // no data: nothing dispatched
    "id: 3\revent: verdict\rdata\rdata: x\r\r"
    "data: not yet dispatched";

std::vector<SseEvent> parse(const std::string& stream, size_t piece, SseParser& p) {
  std::vector<SseEvent> out;
  for (size_t i = 0; i < stream.size(); i += piece)
    p.feed(std::string_view(stream).substr(i, piece), [&](const SseEvent& e) { out.push_back(e); });
  return out;
}

TEST(SseParser, SplitsEventsTheSameWhateverTheChunking) {
  for (size_t piece : {size_t(1), size_t(2), size_t(7), k_stream.size()}) {
    SseParser p;
    auto events = parse(k_stream, piece, p);
    ASSERT_EQ(events.size(), 3u) << "pieces of " << piece;
    EXPECT_EQ(events[0].id, "1");
    EXPECT_EQ(events[0].event, "state");
    EXPECT_EQ(events[0].data, "{\"state\":\"queued\"}");
    EXPECT_EQ(events[1].id, "");
    EXPECT_EQ(events[1].event, "message");  // the default type
    EXPECT_EQ(events[1].data, "line one\nline two");
    EXPECT_EQ(events[2].id, "3");
    EXPECT_EQ(events[2].event, "verdict");
    EXPECT_EQ(events[2].data, "\nx");  // "data" without a colon is an empty data line
    EXPECT_EQ(p.comments(), 1u);
    EXPECT_EQ(p.last_event_id(), "3");
  }
}

TEST(SseParser, AnEventIsDispatchedOnlyAtItsBlankLine) {
  SseParser p;
  std::vector<SseEvent> out;
  auto collect = [&](const SseEvent& e) { out.push_back(e); };
  p.feed("data: a\n", collect);
  EXPECT_TRUE(out.empty());
  p.feed("\n", collect);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, "a");
  EXPECT_EQ(p.last_event_id(), "");  // an event without an id leaves the last id as it was
}

}  // namespace
}  // namespace kwb::client
