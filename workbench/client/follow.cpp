#include "client/follow.hpp"

#include <chrono>
#include <thread>

#include "client/sse.hpp"

namespace kwb::client {

bool terminal_state(const std::string& state) { return state == "done" || state == "cancelled"; }

bool settled(const nlohmann::json& c) {
  if (!terminal_state(c.value("state", std::string()))) return false;
  return !(c.contains("comparison") && c["comparison"].is_object() &&
           c["comparison"].value("state", std::string()) == "pending");
}

bool ends_stream(const CandidateEvent& e) {
  if (e.kind == "comparison") return true;
  if (e.kind != "state") return false;
  const std::string state = e.data.value("state", std::string());
  return state == "cancelled" || (state == "done" && e.data.value("comparison", std::string()) != "pending");
}

ApiResult<nlohmann::json> wait_candidate(ApiClient& api, const std::string& id, int wait_s,
                                         const std::function<void(const std::string&)>& on_note) {
  // A daemon restart (crash recovery resumes the candidate) looks like a refused connection for
  // a few seconds: keep trying for k_reconnect before giving up.
  constexpr auto k_reconnect = std::chrono::seconds(30);
  bool down = false;
  auto down_since = std::chrono::steady_clock::now();
  while (true) {
    auto r = api.get("/v1/candidates/" + id + "?wait=" + std::to_string(wait_s));
    if (!r && r.error().status == 0) {
      auto now = std::chrono::steady_clock::now();
      if (!down) {
        down = true;
        down_since = now;
        if (on_note) on_note(r.error().message + "; retrying for " + std::to_string(k_reconnect.count()) + " s");
      }
      if (now - down_since < k_reconnect) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        continue;
      }
    }
    if (!r) return std::unexpected(r.error());
    down = false;
    if (!r->body.is_object())
      return std::unexpected(ApiError{r->status, "bad_response", "GET /v1/candidates/" + id + ": not a JSON object"});
    if (settled(r->body)) return r->body;
  }
}

ApiResult<nlohmann::json> follow_candidate(ApiClient& api, const std::string& id, const FollowOptions& opt) {
  if (opt.stream) {
    SseParser parser;
    bool terminal = false;
    auto on_sse = [&](const SseEvent& e) {
      auto j = nlohmann::json::parse(e.data, nullptr, false);
      if (j.is_discarded() || !j.is_object()) return;
      CandidateEvent ev{j.value("id", int64_t(0)), j.value("at", std::string()), j.value("kind", e.event),
                        j.contains("data") ? j["data"] : nlohmann::json::object()};
      if (opt.on_event) opt.on_event(ev);
      if (ends_stream(ev)) terminal = true;
    };
    auto streamed = api.stream("/v1/candidates/" + id + "/events", {}, [&](std::string_view chunk) {
      parser.feed(chunk, on_sse);
      return !terminal;
    });
    // An HTTP error (404, 401, ...) is final; a broken connection falls back to the long-poll,
    // which reports the daemon unreachable if it is.
    if (!streamed) {
      if (streamed.error().status != 0) return std::unexpected(streamed.error());
      if (streamed.error().type == "stream_dropped" && opt.on_note)
        opt.on_note("event stream dropped (" + streamed.error().message + "); long-polling instead");
    }
  }
  // The stream ends at the last event (or dropped): the long-poll returns the final record.
  return wait_candidate(api, id, opt.long_poll_s, opt.on_note);
}

}  // namespace kwb::client
