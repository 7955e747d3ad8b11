// The connection gate's request checks: header block, framing headers, chunked body ends.
#include <gtest/gtest.h>

#include "api/http_util.hpp"
#include "api/request_head.hpp"

namespace {

using namespace kwb::api;

std::variant<RequestHead, Refusal> parse(const std::string& head, HeadLimits limits = {}) {
  return parse_request_head(head, limits);
}

int status_of(const std::variant<RequestHead, Refusal>& v) {
  return std::holds_alternative<Refusal>(v) ? std::get<Refusal>(v).status : 0;
}

TEST(RequestHead, FindsTheEndOfTheHeadersAcrossReads) {
  std::string buf = "GET / HTTP/1.1\r\nHost: x\r\n\r";
  EXPECT_FALSE(find_head_end(buf));
  size_t searched = buf.size();
  buf += "\nbody";
  ASSERT_TRUE(find_head_end(buf, searched));
  EXPECT_EQ(*find_head_end(buf, searched), buf.size() - 4);
}

TEST(RequestHead, ParsesWhatTheGateNeeds) {
  auto v = parse("POST /v1/candidates/c-0123456789abcdef/events?wait=5&after=3 HTTP/1.1\r\nHost: x\r\n"
                 "content-length: 12\r\nAuthorization: Bearer kwb_abc\r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(std::holds_alternative<RequestHead>(v)) << std::get<Refusal>(v).message;
  const auto& h = std::get<RequestHead>(v);
  EXPECT_EQ(h.method, "POST");
  EXPECT_EQ(h.path, "/v1/candidates/c-0123456789abcdef/events");
  EXPECT_EQ(h.query, "wait=5&after=3");
  EXPECT_EQ(h.content_length, 12u);
  EXPECT_EQ(h.authorization, "Bearer kwb_abc");
  EXPECT_TRUE(h.close);
  EXPECT_TRUE(h.has_body());
  auto v10 = parse("GET / HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(std::get<RequestHead>(v10).close);  // HTTP/1.0 without keep-alive
}

TEST(RequestHead, RefusesAmbiguousOrOversizedFraming) {
  const char* base = "POST /v1/candidates HTTP/1.1\r\nHost: x\r\n";
  struct Case {
    std::string extra;
    int status;
    std::string type;
  } cases[] = {
      {"Content-Length: -1\r\n", 400, "invalid_header"},
      {"Content-Length: 1e20\r\n", 400, "invalid_header"},
      {"Content-Length: 12abc\r\n", 400, "invalid_header"},
      {"Content-Length: \r\n", 400, "invalid_header"},
      {"Content-Length: 99999999999999999999\r\n", 400, "invalid_header"},
      {"Content-Length: 2\r\nContent-Length: 3\r\n", 400, "invalid_header"},
      {"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", 400, "invalid_header"},
      {"Transfer-Encoding: gzip, chunked\r\n", 501, "unsupported_transfer_encoding"},
      {"Content-Encoding: gzip\r\n", 415, "unsupported_content_encoding"},
      {"Content-Length: 1048577\r\n", 413, "too_large"},
      {"Expect: something\r\n", 417, "expectation_failed"},
      {" folded\r\n", 400, "invalid_header"},
      {"X-Long: " + std::string(9000, 'a') + "\r\n", 431, "header_too_large"},
  };
  for (const auto& k : cases) {
    auto v = parse(base + k.extra + "\r\n");
    ASSERT_TRUE(std::holds_alternative<Refusal>(v)) << k.extra;
    EXPECT_EQ(std::get<Refusal>(v).status, k.status) << k.extra;
    EXPECT_EQ(std::get<Refusal>(v).type, k.type) << k.extra;
  }
  EXPECT_EQ(status_of(parse(std::string(base) + "Content-Length: 1048576\r\n\r\n")), 0);
  EXPECT_EQ(status_of(parse("GET / HTTP/1.1\r\n\r\n", HeadLimits{10, 8192, 1 << 20})), 431);
  EXPECT_EQ(status_of(parse("GET x HTTP/1.1\r\n\r\n")), 400);
  EXPECT_EQ(status_of(parse("GET / HTTP/2\r\n\r\n")), 505);
}

// What a refused head still announces: the gate reads that much more before it closes.
TEST(RequestHead, TheAnnouncedBodyOfARefusedHeadIsKnown) {
  EXPECT_EQ(announced_body_bytes("POST /x HTTP/1.1\r\nHost: t\r\ncontent-length:  67108864 \r\n\r\n"), 67108864u);
  EXPECT_EQ(announced_body_bytes("POST /x HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n"), 5u);
  EXPECT_FALSE(announced_body_bytes("POST /x HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"));
  EXPECT_FALSE(announced_body_bytes("POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n"));
  EXPECT_FALSE(announced_body_bytes("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"));
  EXPECT_FALSE(announced_body_bytes("GET /x HTTP/1.1\r\n\r\n"));
}

TEST(ChunkedScanner, FindsTheEndInPiecesAndRefusesJunk) {
  std::string body = "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\nNEXT";
  ChunkedScanner s;
  ChunkedScanner::State st = ChunkedScanner::State::more;
  for (size_t n = 1; n <= body.size() && st == ChunkedScanner::State::more; ++n) st = s.scan(std::string_view(body).substr(0, n));
  ASSERT_EQ(st, ChunkedScanner::State::done);
  EXPECT_EQ(s.consumed(), body.size() - 4);
  for (std::string bad : {"zz\r\n", "5\r\nhelloXX", "0\r\nTrailer: x\r\n\r\n", "1234567890abcdef0\r\n"}) {
    ChunkedScanner b;
    EXPECT_EQ(b.scan(bad), ChunkedScanner::State::bad) << bad;
    EXPECT_FALSE(b.error().empty());
  }
}

TEST(RequestHead, LongLivedRequestsAreEventStreamsAndLongPolls) {
  auto head = [](const std::string& target) {
    return std::get<RequestHead>(parse("GET " + target + " HTTP/1.1\r\n\r\n"));
  };
  EXPECT_TRUE(is_long_lived(head("/v1/candidates/c-0123456789abcdef/events")));
  EXPECT_TRUE(is_long_lived(head("/v1/candidates/c-0123456789abcdef?wait=30")));
  EXPECT_TRUE(is_long_lived(head("/v1/candidates/c-0123456789abcdef?x=1&wait=30")));
  EXPECT_FALSE(is_long_lived(head("/v1/candidates/c-0123456789abcdef")));
  EXPECT_FALSE(is_long_lived(head("/v1/candidates?waiting=1")));
}

TEST(HttpUtil, IntegersAreWholeDecimalNumbers) {
  EXPECT_EQ(parse_int64("42"), 42);
  EXPECT_EQ(parse_int64("-1"), -1);
  for (const char* bad : {"", "1e5", " 7", "7 ", "+7", "0x10", "99999999999999999999", "1.5"})
    EXPECT_FALSE(parse_int64(bad)) << bad;
}

}  // namespace
