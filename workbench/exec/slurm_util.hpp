#pragma once
// Small helpers of the Slurm executor's files (slurm_executor.cpp, slurm_results.cpp,
// slurm_config.cpp).
#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "core/candidate_state.hpp"
#include "util/fs.hpp"

namespace kwb::exec {

inline std::string slurm_shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Slurm job states in which the job may still run (or run again: a requeued job is PENDING).
inline bool slurm_active_state(const std::string& s) {
  static const std::set<std::string> k = {"PENDING",     "RUNNING",     "CONFIGURING", "COMPLETING", "REQUEUED",
                                          "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING",    "SIGNALING",  "STAGE_OUT",
                                          "STOPPED",     "SUSPENDED"};
  return k.contains(s);
}

inline std::string slurm_tail_of(const std::filesystem::path& file, size_t n) {
  auto text = util::read_file(file);
  if (!text) return "";
  std::string t = text->size() > n ? "..." + text->substr(text->size() - n) : *text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

inline int64_t slurm_epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

inline std::optional<core::CandidateState> slurm_state_of_stage(const std::string& stage) {
  if (stage == "validate") return core::CandidateState::validating;
  if (stage == "benchmark") return core::CandidateState::benchmarking;
  if (stage == "decide") return core::CandidateState::deciding;
  return std::nullopt;
}


}  // namespace kwb::exec
