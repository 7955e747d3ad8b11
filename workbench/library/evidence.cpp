#include "library/evidence.hpp"

#include "store/token_repository.hpp"

namespace kwb::library {

nlohmann::json workload_evidence(const core::Verdict& v) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& w : v.workloads) {
    if (w.kind != "bench" || !w.time) continue;
    nlohmann::json row = {{"workload", w.name},           {"params", w.params},
                          {"median_ns", w.time->median_ns}, {"stderr_pct", w.time->mean_stderr_pct},
                          {"samples", w.time->samples},     {"comparison", nullptr}};
    if (w.comparison) {
      const auto& c = *w.comparison;
      row["comparison"] = {{"label", c.label}, {"ratio", c.ratio}, {"low", c.low}, {"high", c.high},
                           {"confidence", c.confidence}, {"blocks", c.blocks}, {"samples", c.samples},
                           {"candidate_ns", c.candidate_ns}, {"incumbent_ns", c.incumbent_ns}, {"ms", c.ms},
                           {"stop_reason", c.stop_reason}};
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json Authors::name(std::optional<int64_t> token_id) {
  if (!token_id) return nullptr;
  auto it = m_names.find(*token_id);
  if (it != m_names.end()) return it->second;
  auto rec = store::TokenRepository(m_db).find(*token_id);
  nlohmann::json name = rec && *rec ? nlohmann::json((*rec)->name) : nlohmann::json();
  return m_names[*token_id] = name;
}

nlohmann::json provenance(const store::CandidateRecord& r, Authors& authors) {
  return {{"author", authors.name(r.token_id)},
          {"source_sha256", r.source_sha256},
          {"bench", r.bench},
          {"bench_subset", !r.bench.empty()}};
}

}  // namespace kwb::library
