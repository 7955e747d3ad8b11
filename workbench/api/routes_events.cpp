// GET /v1/candidates/{id}/events — Server-Sent Events (replay from Last-Event-ID, heartbeats,
// closes after the terminal event: the verdict's, or the decision's where a comparison follows
// it) or, with ?wait=S, a JSON long-poll.
#include <memory>

#include "api/http_util.hpp"
#include "api/routes.hpp"
#include "store/candidate_repository.hpp"
#include "store/event_repository.hpp"

namespace kwb::api {

namespace {

// The last event of a candidate (docs/api.md "Events"): cancelled; done without a comparison to
// follow; or the comparison's decision, which follows a done with "comparison": "pending".
bool terminal_event(const store::EventRecord& e) {
  if (e.kind == "comparison") return true;
  if (e.kind != "state") return false;
  auto s = e.data.value("state", std::string());
  return s == "cancelled" || (s == "done" && e.data.value("comparison", std::string()) != "pending");
}

nlohmann::json event_json(const store::EventRecord& e) {
  return {{"id", e.id}, {"at", e.at}, {"kind", e.kind}, {"data", e.data}};
}

void long_poll(httplib::Response& res, ApiContext& ctx, const std::string& id, int64_t after, int wait_s) {
  store::EventRepository events(ctx.db);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait_s);
  while (true) {
    uint64_t seen = ctx.hub.version(id);
    auto got = events.after(id, after);
    if (!got) return send_failure(res, got.error());
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (!got->empty() || left.count() <= 0 || ctx.hub.is_shutdown()) {
      nlohmann::json items = nlohmann::json::array();
      bool done = false;
      for (const auto& e : *got) {
        items.push_back(event_json(e));
        done = done || terminal_event(e);
        after = e.id;
      }
      return send_json(res, 200, {{"events", items}, {"after", after}, {"done", done}});
    }
    ctx.hub.wait(id, seen, left);
  }
}

struct StreamState {
  int64_t last_id = 0;
  bool done = false;
};

}  // namespace

void add_event_routes(Router& svr, ApiContext& ctx) {
  svr.Get("/v1/candidates/{id}/events", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (!guard(req, res, ctx, Role::agent)) return;
    std::string id = req.matches[1];
    store::CandidateRepository repo(ctx.db);
    auto rec = repo.find(id);
    if (!rec) return send_failure(res, rec.error());
    if (!*rec) return send_error(res, 404, "not_found", "no candidate " + id);
    int64_t after = 0;
    if (req.has_header("Last-Event-ID")) {
      std::string v = req.get_header_value("Last-Event-ID");
      auto n = parse_int64(v);
      if (!n || *n < 0)
        return send_error(res, 400, "invalid_header",
                          "Last-Event-ID: expected an event id (a non-negative decimal integer), got \"" + v.substr(0, 40) +
                              "\"");
      after = *n;
    }
    auto after_q = query_int(req, res, "after", after, 0, INT64_MAX);
    if (!after_q) return;
    if (req.has_param("wait")) {
      auto wait_s = query_int(req, res, "wait", 0, 0, ctx.limits.max_wait_s);
      if (!wait_s) return;
      return long_poll(res, ctx, id, *after_q, int(*wait_s));
    }
    auto state = std::make_shared<StreamState>();
    state->last_id = *after_q;
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider("text/event-stream", [&ctx, id, state](size_t, httplib::DataSink& sink) {
      if (state->done || ctx.hub.is_shutdown()) {
        sink.done();
        return true;
      }
      store::EventRepository events(ctx.db);
      uint64_t seen = ctx.hub.version(id);
      auto got = events.after(id, state->last_id);
      if (!got) return false;
      for (const auto& e : *got) {
        std::string chunk = "id: " + std::to_string(e.id) + "\nevent: " + e.kind + "\ndata: " +
                            event_json(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n\n";
        if (!sink.write(chunk.data(), chunk.size())) return false;
        state->last_id = e.id;
        state->done = state->done || terminal_event(e);
      }
      if (state->done) {
        sink.done();
        return true;
      }
      if (got->empty()) {
        // Nothing new. A client resuming after the terminal event (Last-Event-ID) ends here.
        auto all = events.after(id, 0);
        bool terminal_seen = false;
        if (all)
          for (const auto& e : *all) terminal_seen = terminal_seen || (terminal_event(e) && e.id <= state->last_id);
        if (terminal_seen) {
          sink.done();
          return true;
        }
      }
      if (got->empty() && ctx.hub.wait(id, seen, ctx.limits.heartbeat) == seen) {
        static const std::string beat = ": keep-alive\n\n";
        if (!sink.write(beat.data(), beat.size())) return false;
      }
      return true;
    });
  });
}

}  // namespace kwb::api
