#include "core/filters.hpp"

#include <algorithm>

#include "core/backend.hpp"
#include "core/candidate_state.hpp"
#include "core/verdict.hpp"
#include "util/similar.hpp"

namespace kwb::core {

const std::vector<std::string>& candidate_states() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (int s = int(CandidateState::queued); s <= int(CandidateState::cancelled); ++s)
      v.emplace_back(state_name(CandidateState(s)));
    return v;
  }();
  return k;
}

const std::vector<std::string>& verdict_statuses() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (Status s : {Status::accepted, Status::incorrect, Status::compile_error, Status::rejected,
                     Status::sandbox_violation, Status::time_limit, Status::memory_limit, Status::output_limit,
                     Status::crashed, Status::no_device, Status::error})
      v.emplace_back(status_name(s));
    return v;
  }();
  return k;
}

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (Backend b : k_backends) v.emplace_back(backend_name(b));
    return v;
  }();
  return k;
}

std::optional<std::string> refuse_unknown(const std::string& what, const std::string& value,
                                          const std::vector<std::string>& valid) {
  if (std::find(valid.begin(), valid.end(), value) != valid.end()) return std::nullopt;
  std::string list;
  for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
  std::string msg = "unknown " + what + " '" + value + "' (valid: " + (list.empty() ? "none" : list) + ")";
  if (auto near = util::closest_name(value, valid)) msg += "; did you mean '" + *near + "'?";
  return msg;
}

}  // namespace kwb::core
