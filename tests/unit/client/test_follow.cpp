// client::follow_candidate and wait_candidate against a local server that plays the daemon: the
// event stream's events in order, then the final record by long-poll; a dropped stream falls back
// to the long-poll with a note; an HTTP error of the stream is final; the long-poll repeats until
// the candidate is done and refuses a body that is not a JSON object.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "client/follow.hpp"
#include "local_server.hpp"

namespace kwb::client {
namespace {

using kwb::test::LocalServer;
using kwb::test::send_error;

std::string sse(int64_t id, const std::string& kind, const nlohmann::json& data) {
  nlohmann::json e{{"id", id}, {"at", "2026-01-01T00:00:00Z"}, {"kind", kind}, {"data", data}};
  return "id: " + std::to_string(id) + "\nevent: " + kind + "\ndata: " + e.dump() + "\n\n";
}

// What the fake daemon saw.
struct Asked {
  std::atomic<int> long_polls{0};
  std::atomic<int> polls_of_c4{0};
  std::mutex mutex;
  std::string last_wait;  // under mutex
  std::string wait_query() {
    std::lock_guard lock(mutex);
    return last_wait;
  }
};

void routes(httplib::Server& s, Asked& asked) {
  // c-1: a whole stream that ends with the terminal state.
  s.Get("/v1/candidates/c-1/events", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
      std::string all = sse(1, "state", {{"state", "queued"}}) + ": heartbeat\n\n" +
                        sse(2, "stage", {{"stage", "compile"}, {"finished", false}}) +
                        sse(3, "stage", {{"stage", "compile"}, {"finished", true}, {"detail", "g++ 12.2.0, 5 ms"}}) +
                        sse(4, "verdict", {{"status", "accepted"}, {"reason", "fine"}}) +
                        sse(5, "state", {{"state", "done"}});
      sink.write(all.data(), all.size());
      sink.done();
      return true;
    });
  });
  // c-2: the stream breaks after its first event.
  s.Get("/v1/candidates/c-2/events", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
      std::string first = sse(1, "state", {{"state", "queued"}});
      sink.write(first.data(), first.size());
      return false;  // the connection is closed without the stream's end
    });
  });
  // c-3: no such candidate.
  s.Get("/v1/candidates/c-3/events", [](const httplib::Request&, httplib::Response& res) {
    send_error(res, 404, "not_found", "no candidate c-3");
  });
  s.Get(R"(/v1/candidates/(c-[0-9]+))", [&asked](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    ++asked.long_polls;
    {
      std::lock_guard lock(asked.mutex);
      asked.last_wait = req.get_param_value("wait");
    }
    if (id == "c-3") return send_error(res, 404, "not_found", "no candidate c-3");
    if (id == "c-5") return res.set_content("[1, 2]", "application/json");
    // c-4 is still benchmarking on its first two polls.
    std::string state = id == "c-4" && ++asked.polls_of_c4 <= 2 ? "benchmarking" : "done";
    res.set_content(nlohmann::json{{"id", id}, {"state", state}, {"verdict", {{"status", "accepted"}}}}.dump(),
                    "application/json");
  });
}

TEST(FollowCandidate, ReportsEveryStreamedEventThenReturnsTheFinalRecord) {
  Asked asked;
  LocalServer server([&](httplib::Server& s) { routes(s, asked); });
  ApiClient api(Endpoint{server.url(), ""});
  std::vector<std::string> seen, notes;
  FollowOptions opt;
  opt.long_poll_s = 3;
  opt.on_event = [&](const CandidateEvent& e) {
    seen.push_back(std::to_string(e.id) + " " + e.kind + " " + e.data.dump());
  };
  opt.on_note = [&](const std::string& n) { notes.push_back(n); };
  auto r = follow_candidate(api, "c-1", opt);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ((*r)["state"], "done");
  EXPECT_EQ((*r)["verdict"]["status"], "accepted");
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0], R"(1 state {"state":"queued"})");
  EXPECT_EQ(seen[2], R"(3 stage {"detail":"g++ 12.2.0, 5 ms","finished":true,"stage":"compile"})");
  EXPECT_EQ(seen[4], R"(5 state {"state":"done"})");
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(asked.long_polls, 1);  // once, for the final record
  EXPECT_EQ(asked.wait_query(), "3");
}

TEST(FollowCandidate, ADroppedStreamFallsBackToTheLongPollWithANote) {
  Asked asked;
  LocalServer server([&](httplib::Server& s) { routes(s, asked); });
  ApiClient api(Endpoint{server.url(), ""});
  std::vector<std::string> notes;
  int events = 0;
  FollowOptions opt;
  opt.on_event = [&](const CandidateEvent&) { ++events; };
  opt.on_note = [&](const std::string& n) { notes.push_back(n); };
  auto r = follow_candidate(api, "c-2", opt);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ((*r)["state"], "done");
  EXPECT_EQ(events, 1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("event stream dropped (", 0), 0u) << notes[0];
  EXPECT_NE(notes[0].find("long-polling instead"), std::string::npos) << notes[0];
}

TEST(FollowCandidate, AnHttpErrorOfTheStreamIsFinal) {
  Asked asked;
  LocalServer server([&](httplib::Server& s) { routes(s, asked); });
  ApiClient api(Endpoint{server.url(), ""});
  auto r = follow_candidate(api, "c-3", FollowOptions{});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().what(), "HTTP 404 not_found: no candidate c-3");
  EXPECT_EQ(asked.long_polls, 0);
}

TEST(WaitCandidate, LongPollsUntilTheCandidateIsTerminal) {
  Asked asked;
  LocalServer server([&](httplib::Server& s) { routes(s, asked); });
  ApiClient api(Endpoint{server.url(), ""});
  auto r = wait_candidate(api, "c-4", 1);
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ((*r)["state"], "done");
  EXPECT_EQ(asked.polls_of_c4, 3);
  EXPECT_EQ(asked.wait_query(), "1");
  // Long-poll only (no stream) takes the same way.
  FollowOptions poll_only;
  poll_only.stream = false;
  auto p = follow_candidate(api, "c-1", poll_only);
  ASSERT_TRUE(p) << p.error().what();
  EXPECT_EQ((*p)["id"], "c-1");
}

TEST(WaitCandidate, ABodyThatIsNotAnObjectIsABadResponse) {
  Asked asked;
  LocalServer server([&](httplib::Server& s) { routes(s, asked); });
  ApiClient api(Endpoint{server.url(), ""});
  auto r = wait_candidate(api, "c-5", 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().type, "bad_response");
  EXPECT_EQ(r.error().message, "GET /v1/candidates/c-5: not a JSON object");
  EXPECT_TRUE(terminal_state("done"));
  EXPECT_TRUE(terminal_state("cancelled"));
  EXPECT_FALSE(terminal_state("deciding"));
}

}  // namespace
}  // namespace kwb::client
