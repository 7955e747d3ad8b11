#pragma once
// What a reviewer reads beside a ratio (issue 17, point 7): per bench workload the candidate's
// median with its ± and sample count and the interleaved comparison with the incumbent; who
// submitted the candidate (the token's name); whether it was timed on a bench subset; its source
// digest, so identical sources are seen as one.
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/verdict.hpp"
#include "store/candidate_repository.hpp"
#include "store/database.hpp"

namespace kwb::library {

// [{workload, params, median_ns, stderr_pct, samples, comparison: {label, ratio, low, high,
// confidence, blocks, samples} | null}] for the timed bench workloads. stderr_pct is the
// relative standard error of the mean (the ± of the timing), samples the timed samples.
nlohmann::json workload_evidence(const core::Verdict& v);

// Token names by id, read once per token (a candidate of a --no-auth daemon has no author).
class Authors {
 public:
  explicit Authors(store::Database& db) : m_db(db) {}
  nlohmann::json name(std::optional<int64_t> token_id);  // the name, or null

 private:
  store::Database& m_db;
  std::map<int64_t, nlohmann::json> m_names;
};

// {author, source_sha256, bench, bench_subset}: bench lists the workloads it was timed on when
// it was submitted with a subset (bench_subset true), empty for every bench workload.
nlohmann::json provenance(const store::CandidateRecord& r, Authors& authors);

}  // namespace kwb::library
