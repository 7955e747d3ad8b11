#pragma once
// Tolerance headroom (docs/specs.md "Checking a spec", check 11): how close a same-precision
// implementation of the op comes to the spec's tolerances. Per variant that ships a CPU template
// (template.<variant>.cpp, run through speccheck/template_adapter.hpp), the template and the
// reference run on the same inputs over the published test workloads, edge probes (one param at
// the low end of its range, lo, lo+1, lo+2, the others as large as the constraints and the
// element cap allow, every scalar at the high end of its range) and shapes drawn from the check's
// seed, under every distribution. Per
// output and distribution it reports the template's worst error as a share of the tolerance: a
// note with the headroom, a warning below 2x headroom, an error when the template fails the
// tolerance (an honest same-precision kernel would be rejected; or the template is wrong).
#include <functional>
#include <memory>
#include <vector>

#include "core/spec.hpp"
#include "eval/reference.hpp"
#include "speccheck/problem.hpp"
#include "speccheck/reference_checks.hpp"
#include "util/error.hpp"

namespace kwb::speccheck {

// Opens variant v's CPU template as a reference (build errors: the template does not compile).
using TemplateOpener =
    std::function<util::Result<std::shared_ptr<eval::Reference>>(const core::Spec& spec, const core::Variant& v)>;

// The shape a run stays within: the headroom check draws shapes under this element cap (or the
// spec's, when lower), so many shapes stay cheap.
constexpr int64_t k_headroom_max_elements = int64_t{1} << 18;
// Below this share of the tolerance, a same-precision kernel has the 2x headroom the check asks for.
constexpr double k_headroom_share = 0.5;

// The workloads the check runs: test workloads, edge probes ("probe:rows=4096,cols=2") and drawn
// shapes ("drawn:..."), in that order.
std::vector<core::Workload> headroom_workloads(const core::Spec& spec, uint64_t seed);

void check_tolerance_headroom(const core::Spec& spec, eval::Reference& reference, const TemplateOpener& open_template,
                              const ReferenceCheckOptions& options, Findings& out);

}  // namespace kwb::speccheck
