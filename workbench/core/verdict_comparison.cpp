#include "core/verdict_comparison.hpp"

namespace kwb::core {

ComparisonPart merge_comparison(const Verdict& stored, const Verdict& judged) {
  ComparisonPart out{stored, nlohmann::json::object()};
  Verdict& m = out.merged;
  nlohmann::json failure = nullptr;
  std::string note;
  if (judged.status != stored.status) {
    failure = {{"status", std::string(status_name(judged.status))}, {"reason", judged.reason}};
    note = "the comparison with the incumbent stopped: the candidate's " + std::string(status_name(judged.status)) +
           " during it: " + judged.reason;
    m.summary.beats_incumbent = false;
    m.summary.decision = Decision{false, "not promotable: " + note, {}, {}, {}};
    m.summary.incumbent = judged.summary.incumbent;
  } else {
    if (judged.reason.size() > stored.reason.size() && judged.reason.starts_with(stored.reason))
      note = judged.reason.substr(stored.reason.size());
    while (note.starts_with(";") || note.starts_with(" ")) note.erase(0, 1);
    m.summary.incumbent = judged.summary.incumbent;
    m.summary.decision = judged.summary.decision;
    m.summary.geomean_vs_incumbent = judged.summary.geomean_vs_incumbent;
    m.summary.beats_incumbent = judged.summary.beats_incumbent;
    for (auto& w : m.workloads)
      for (const auto& j : judged.workloads)
        if (j.kind == w.kind && j.name == w.name) {
          w.vs_incumbent = j.vs_incumbent;
          w.comparison = j.comparison;
        }
  }
  if (judged.summary.machine) m.summary.machine = judged.summary.machine;
  m.summary.resources = judged.summary.resources;
  m.summary.blocks_sha256 = judged.summary.blocks_sha256;
  if (auto it = judged.summary.stage_ms.find("decide"); it != judged.summary.stage_ms.end()) {
    m.summary.stage_ms["decide"] = it->second;
    m.summary.wall_ms = stored.summary.wall_ms + it->second;
  }
  if (!note.empty()) m.reason = stored.reason + (stored.reason.empty() ? "" : "; ") + note;

  const nlohmann::json mj = to_json(m);
  const auto& s = mj["summary"];
  auto& c = out.comparison;
  c["state"] = "done";
  c["promotable"] = m.summary.beats_incumbent.value_or(false);
  c["reason"] = m.summary.decision ? nlohmann::json(m.summary.decision->reason) : nlohmann::json(note);
  c["note"] = note;
  for (const char* k : {"incumbent", "decision", "geomean_vs_incumbent", "beats_incumbent", "resources"})
    c[k] = s.contains(k) ? s[k] : nlohmann::json(nullptr);
  c["ms"] = m.summary.stage_ms.contains("decide") ? nlohmann::json(m.summary.stage_ms.at("decide")) : nlohmann::json(nullptr);
  c["failure"] = failure;
  c["workloads"] = nlohmann::json::array();
  for (const auto& w : mj.value("workloads", nlohmann::json::array()))
    if (w.value("kind", "") == "bench" && w.contains("comparison") && !w["comparison"].is_null())
      c["workloads"].push_back({{"name", w["name"]}, {"vs_incumbent", w.value("vs_incumbent", nlohmann::json())},
                                {"comparison", w["comparison"]}});
  return out;
}

}  // namespace kwb::core
