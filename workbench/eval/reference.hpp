#pragma once
// The trusted reference of a spec, as the evaluation sees it: computes the expected outputs of
// one workload from its inputs, or says why it could not. A failure is the spec's fault (the
// reference crashed, hung, threw or wrote outside its outputs), never the candidate's: the
// verdict is `error` and names the spec (docs/specs.md, "References").
#include <functional>
#include <memory>

#include "core/reference.hpp"
#include "core/spec.hpp"
#include "util/error.hpp"

namespace kwb::eval {

class Reference {
 public:
  virtual ~Reference() = default;
  // Reads args.inputs, writes every element of args.outputs (pre-sized). One call at a time.
  virtual util::Result<void> compute(const core::ReferenceArgs& args) = 0;
  // The same for a caller whose outputs hold nothing to keep (the harness's expected outputs):
  // the caller's output values are not read, so an element the reference does not write is not
  // the caller's but 0 (reference process) or NaN (GPU reference, which never reads them).
  virtual util::Result<void> compute_fresh(const core::ReferenceArgs& args) { return compute(args); }
};

// Opens the reference of `spec` for one evaluation (which may keep it across workloads).
using ReferenceOpener = std::function<util::Result<std::shared_ptr<Reference>>(const core::Spec& spec)>;

// Opens it, or says why not in the words of blame_spec.
util::Result<std::shared_ptr<Reference>> open_reference(const ReferenceOpener& open, const core::Spec& spec);

// "spec softmax (specs/softmax/spec.json), its reference: " + what: how reference failures read.
std::string blame_spec(const core::Spec& spec, const std::string& what);

}  // namespace kwb::eval
