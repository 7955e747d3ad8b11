#pragma once
// Validation of a submit body (POST /v1/candidates, MCP submit_kernel) into a candidate record:
// every field checked against the catalog and the daemon's configuration; a refusal names the
// field and what is wrong (intake.hpp).
#include <string>

#include <expected>

#include "exec/executor.hpp"
#include "exec/refusal.hpp"
#include "spec/loader.hpp"
#include "store/candidate_repository.hpp"

namespace kwb::exec {

// What the daemon evaluates: the backends, and the device classes a submission may ask for.
struct SubmissionRules {
  size_t max_source_bytes = 256 << 10;
  std::vector<std::string> backends = {"cpu"};
  std::string executor = "local";  // "local" | "slurm": named in refusals
  std::vector<DeviceClassInfo> device_classes;
};

struct Submission {
  store::CandidateRecord rec;
  std::string source;
  std::string request_sha256;  // of the normalised body: an Idempotency-Key replay must match it
};

// `body` is the raw request body (checked for valid UTF-8 and JSON).
std::expected<Submission, Refusal> parse_submission(const std::string& body, const spec::Catalog& catalog,
                                                    const SubmissionRules& rules);

}  // namespace kwb::exec
