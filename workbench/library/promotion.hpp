#pragma once
// Promotion (docs/library.md "Promotion"): one commit that adds the candidate's kernel source and
// metadata (launch plan and tunables in the source, evidence, flags) and makes it the incumbent in
// dispatch.json, with trailers (Kwb-Candidate, Kwb-Op, Kwb-Variant, Kwb-Backend, Kwb-Device,
// Kwb-Toolchain, Kwb-Speedup, Kwb-Replaces, Kwb-Spec-Version, Kwb-Reviewer). Refused unless the
// verdict is accepted and beats the incumbent it was compared with, and that incumbent is still the
// library's.
#include <optional>
#include <string>

#include "core/candidate.hpp"
#include "core/spec.hpp"
#include "core/verdict.hpp"
#include "library/repository.hpp"

namespace kwb::library {

struct PromotionRequest {
  core::Candidate candidate;  // id, op, variant, backend, source, flags, note
  core::Verdict verdict;
  const core::Spec* spec = nullptr;  // to tell spec params from tunables
  std::string reviewer;              // token name, "ci" or "auto-promote"
  // The candidate's recorded device class (a Slurm node's; library::device_class(v, recorded));
  // empty: the verdict's own, read on this machine.
  std::string device_class = {};
};

struct PromotionResult {
  enum class Kind { committed, refused, conflict } kind = Kind::refused;
  std::string reason;  // refused / conflict: what is wrong and what to do
  std::string commit;  // committed: the library commit
  std::string kernel;  // committed: the new kernel's library path
};

// Never throws; a libgit2 failure is an error, a policy refusal or a race is a result.
util::Result<PromotionResult> promote(Repository& repo, const PromotionRequest& req);

// Where the library's head already names `candidate_id` in dispatch.json (a promotion whose
// commit landed but whose decision was not recorded): the commit that added its kernel.
struct LandedPromotion {
  std::string commit, kernel;
};
std::optional<LandedPromotion> landed_promotion(Repository& repo, const std::string& candidate_id);

// Library path of a promoted candidate's source: "<op>/<backend>/<variant>_<id>.<cpp|cu>".
std::string promoted_path(const core::Candidate& c, const std::string& variant);

}  // namespace kwb::library
