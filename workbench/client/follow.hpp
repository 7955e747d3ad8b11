#pragma once
// Following one candidate until nothing more happens to it: the SSE stream GET
// /v1/candidates/{id}/events for live progress (the verdict, then the decision against the
// incumbent where a comparison follows it), then GET /v1/candidates/{id}?wait=S (long-poll) for
// the final record. If the stream drops, the long-poll alone carries on.
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "client/api_client.hpp"

namespace kwb::client {

// One stored event, as the daemon sends it: {"id", "at", "kind", "data"}.
struct CandidateEvent {
  int64_t id = 0;
  std::string at;
  std::string kind;  // "state" | "stage" | "progress" | "verdict" | "comparison" | "decision" | "ci"
  nlohmann::json data;
};

struct FollowOptions {
  bool stream = true;      // false: long-poll only
  int long_poll_s = 30;    // ?wait= for each long-poll round
  std::function<void(const CandidateEvent&)> on_event;    // live progress (may be empty)
  std::function<void(const std::string&)> on_note;        // e.g. "event stream dropped; long-polling"
};

bool terminal_state(const std::string& state);
// Nothing more happens to the candidate (JSON of GET /v1/candidates/{id}): cancelled, or done
// with no comparison pending.
bool settled(const nlohmann::json& candidate);
// The last event of a candidate's stream: cancelled, done without a comparison to follow, or the
// comparison's decision (docs/api.md "Events").
bool ends_stream(const CandidateEvent& e);

// Returns the candidate JSON (with "verdict" once done) in its terminal state.
ApiResult<nlohmann::json> follow_candidate(ApiClient& api, const std::string& id, const FollowOptions& opt);

// Long-polls GET /v1/candidates/{id}?wait=S until the candidate is settled. While the daemon
// is unreachable (a restart) it retries for 30 s, telling on_note once.
ApiResult<nlohmann::json> wait_candidate(ApiClient& api, const std::string& id, int wait_s,
                                         const std::function<void(const std::string&)>& on_note = {});

}  // namespace kwb::client
