// client::ApiClient against a local HTTP server: JSON in and out, the bearer token, the server's
// {error:{type,message}} and Retry-After as an ApiError, non-JSON bodies, an unreachable daemon,
// event streams (data, a normal stop, an HTTP error) and url_encode.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <string>

#include "client/api_client.hpp"
#include "local_server.hpp"

namespace kwb::client {
namespace {

using kwb::test::LocalServer;
using kwb::test::send_error;

void routes(httplib::Server& s) {
  s.Get("/v1/hello", [](const httplib::Request& req, httplib::Response& res) {
    nlohmann::json j{{"hello", "world"}, {"authorization", req.get_header_value("Authorization")},
                     {"x_extra", req.get_header_value("X-Extra")}};
    res.set_header("X-Served-By", "local");
    res.set_content(j.dump(), "application/json");
  });
  s.Post("/v1/echo", [](const httplib::Request& req, httplib::Response& res) {
    auto body = nlohmann::json::parse(req.body, nullptr, false);
    res.status = 202;
    res.set_content(nlohmann::json{{"got", body}, {"content_type", req.get_header_value("Content-Type")}}.dump(),
                    "application/json");
  });
  s.Get("/v1/specs/nope", [](const httplib::Request&, httplib::Response& res) {
    send_error(res, 422, "unknown_op", "op: unknown op 'nope' (known: softmax)");
  });
  s.Get("/v1/busy", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Retry-After", "7");
    send_error(res, 429, "rate_limited", "too many requests from this token");
  });
  s.Get("/v1/broken", [](const httplib::Request&, httplib::Response& res) {
    res.status = 502;
    res.set_content("upstream fell over", "text/plain");
  });
  s.Get("/v1/text", [](const httplib::Request&, httplib::Response& res) { res.set_content("not json", "text/plain"); });
  s.Get("/v1/stream", [](const httplib::Request& req, httplib::Response& res) {
    std::string accept = req.get_header_value("Accept");
    res.set_chunked_content_provider("text/event-stream", [accept](size_t, httplib::DataSink& sink) {
      for (const std::string& part : {"data: accept=" + accept + "\n\n", std::string("data: two\n\n"),
                                      std::string("data: three\n\n")})
        if (!sink.write(part.data(), part.size())) return false;
      sink.done();
      return true;
    });
  });
  s.Get("/v1/stream-missing", [](const httplib::Request&, httplib::Response& res) {
    send_error(res, 404, "not_found", "no candidate c-missing");
  });
}

// A loopback port where nothing listens: bound and closed again.
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(ApiClient, GetsJsonWithTheBearerTokenAndExtraHeaders) {
  LocalServer server(routes);
  ApiClient api(Endpoint{server.url(), "kwb_secret"});
  auto r = api.get("/v1/hello", {{"X-Extra", "yes"}});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body["hello"], "world");
  EXPECT_EQ(r->body["authorization"], "Bearer kwb_secret");
  EXPECT_EQ(r->body["x_extra"], "yes");
  EXPECT_EQ(r->header("x-served-by"), "local");  // names compare without case
  EXPECT_EQ(r->header("X-Absent"), "");
  // Without a token no Authorization header is sent.
  ApiClient anonymous(Endpoint{server.url(), ""});
  auto a = anonymous.get("/v1/hello");
  ASSERT_TRUE(a) << a.error().what();
  EXPECT_EQ(a->body["authorization"], "");
}

TEST(ApiClient, PostsJsonAndKeepsTheStatus) {
  LocalServer server(routes);
  ApiClient api(Endpoint{server.url(), ""});
  auto r = api.post("/v1/echo", {{"op", "softmax"}, {"flags", {"-O2"}}});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->status, 202);
  EXPECT_EQ(r->body["got"]["op"], "softmax");
  EXPECT_EQ(r->body["got"]["flags"][0], "-O2");
  EXPECT_EQ(r->body["content_type"], "application/json");
  // One client, one kept connection: a second request on it works as well.
  auto again = api.get("/v1/hello");
  ASSERT_TRUE(again) << again.error().what();
}

TEST(ApiClient, TheServersJsonErrorBecomesAReadableApiError) {
  LocalServer server(routes);
  ApiClient api(Endpoint{server.url(), ""});
  auto r = api.get("/v1/specs/nope");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().status, 422);
  EXPECT_EQ(r.error().type, "unknown_op");
  EXPECT_EQ(r.error().message, "op: unknown op 'nope' (known: softmax)");
  EXPECT_EQ(r.error().what(), "HTTP 422 unknown_op: op: unknown op 'nope' (known: softmax)");
  auto busy = api.get("/v1/busy");
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.error().status, 429);
  EXPECT_EQ(busy.error().retry_after_s, 7);
  EXPECT_EQ(busy.error().type, "rate_limited");
}

TEST(ApiClient, ABodyThatIsNotJsonIsKeptRaw) {
  LocalServer server(routes);
  ApiClient api(Endpoint{server.url(), ""});
  auto broken = api.get("/v1/broken");  // an error without the server's JSON: its text, typed http_error
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().status, 502);
  EXPECT_EQ(broken.error().type, "http_error");
  EXPECT_EQ(broken.error().what(), "HTTP 502 http_error: upstream fell over");
  auto text = api.get("/v1/text");  // a success that is not JSON: body null, raw kept
  ASSERT_TRUE(text) << text.error().what();
  EXPECT_TRUE(text->body.is_null());
  EXPECT_EQ(text->raw, "not json");
}

TEST(ApiClient, AnUnreachableDaemonSaysWhereAndWhatToDo) {
  const std::string url = "http://127.0.0.1:" + std::to_string(closed_port());
  ApiClient api(Endpoint{url, ""});
  auto r = api.get("/v1/health");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().status, 0);
  EXPECT_EQ(r.error().type, "unreachable");
  EXPECT_NE(r.error().message.find("cannot reach the kwb daemon at " + url), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("kwb serve"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().what().rfind("unreachable: cannot reach", 0), 0u) << r.error().what();  // no "HTTP 0"
  auto s = api.stream("/v1/stream", {}, [](std::string_view) { return true; });
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().type, "unreachable");
}

TEST(ApiClient, StreamsDeliverTheDataAndStopWhenTheReaderSaysSo) {
  LocalServer server(routes);
  ApiClient api(Endpoint{server.url(), ""});
  std::string all;
  auto whole = api.stream("/v1/stream", {}, [&](std::string_view d) {
    all += d;
    return true;
  });
  ASSERT_TRUE(whole) << whole.error().what();
  EXPECT_EQ(all, "data: accept=text/event-stream\n\ndata: two\n\ndata: three\n\n");
  // The reader stops after the first chunk: a normal end, not an error.
  int chunks = 0;
  auto stopped = api.stream("/v1/stream", {}, [&](std::string_view) { return ++chunks < 1; });
  EXPECT_TRUE(stopped) << stopped.error().what();
  EXPECT_EQ(chunks, 1);
  auto missing = api.stream("/v1/stream-missing", {}, [](std::string_view) { return true; });
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().status, 404);
  EXPECT_EQ(missing.error().type, "not_found");
  EXPECT_EQ(missing.error().message, "no candidate c-missing");
}

TEST(UrlEncode, KeepsUnreservedCharactersAndEscapesTheRest) {
  EXPECT_EQ(url_encode("AZaz09-_.~"), "AZaz09-_.~");
  EXPECT_EQ(url_encode("a b/c?d=e&f"), "a%20b%2Fc%3Fd%3De%26f");
  EXPECT_EQ(url_encode("\xc3\xa9"), "%C3%A9");  // UTF-8 bytes, upper-case hex
  EXPECT_EQ(url_encode(""), "");
}

}  // namespace
}  // namespace kwb::client
