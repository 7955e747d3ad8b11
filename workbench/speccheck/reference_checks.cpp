// The reference's own runs: every element written, deterministic, finite where promised; then
// the tolerance sanity of tolerance_sanity.cpp on the same runs.
#include "speccheck/reference_checks.hpp"

#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <set>

#include "eval/compare.hpp"
#include "speccheck/reference_run.hpp"
#include "speccheck/tolerance_sanity.hpp"

namespace kwb::speccheck {

using namespace detail;

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string value_text(double v) {
  if (bits_of(v) == k_poison_nan) return "the NaN poison";
  if (bits_of(v) == k_poison_finite) return "the second poison";
  return fmt::format("{:.17g}", v);
}

// Reports one problem per output and kind; returns whether the run is clean enough to judge the
// tolerances on (every element written, the runs agree).
// `seen` keeps each kind of problem to its first run per variant and output.
bool check_runs(const Case& c, const Outputs& a, const Outputs& b, std::set<std::string>& seen, Findings& out) {
  bool clean = true;
  auto first = [&](const char* kind, const std::string& name) {
    return seen.insert(fmt::format("{}/{}/{}", kind, c.variant_index, name)).second;
  };
  for (const auto& [name, va] : a) {
    const auto& vb = b.at(name);
    const auto& shape = c.shapes.at(name);
    const core::TensorSpec& t = *c.spec->find_tensor(name);
    size_t unwritten = 0, first_unwritten = 0, differ = 0, first_differ = 0, non_finite = 0, first_non_finite = 0;
    const core::Tolerance& tol = c.variant->tolerance.at(name);
    const core::DType dt = c.variant->dtypes.at(name);
    std::vector<unsigned char> b_rounded;
    if (!c.spec->deterministic) {
      b_rounded.resize(vb.size() * core::dtype_size(dt));
      for (size_t i = 0; i < vb.size(); ++i) core::store_from_double(b_rounded.data(), dt, i, vb[i]);
    }
    for (size_t i = 0; i < va.size(); ++i) {
      if (bits_of(va[i]) == k_poison_nan && bits_of(vb[i]) == k_poison_finite) {
        if (unwritten++ == 0) first_unwritten = i;
        continue;
      }
      if (bits_of(va[i]) != bits_of(vb[i]) && c.spec->deterministic)
        if (differ++ == 0) first_differ = i;
      // Elements whose runs differ are reported as such, not again here.
      if (!std::isfinite(va[i]) && bits_of(va[i]) == bits_of(vb[i]) && requires_finite(t, *c.distribution))
        if (non_finite++ == 0) first_non_finite = i;
    }
    if (!c.spec->deterministic) {  // within tolerance, as kernels of such specs are judged
      auto cmp = eval::compare_output(b_rounded.data(), dt, va, tol, shape, name);
      differ = size_t(cmp.mismatches);
      first_differ = size_t(std::max<int64_t>(cmp.first_bad, 0));
    }
    const std::string field = c.tensor_path(name);
    if (unwritten > 0) clean = false;
    if (differ > 0) clean = false;
    if (unwritten > 0 && first("unwritten", name))
      out.reference_error(field, fmt::format("{}: {} of {} elements of output {} are never written (first {}): they "
                                             "kept the NaN poison in one run and a second poison in another",
                                             c.context(), unwritten, va.size(), name, index_text(shape, first_unwritten)));
    if (differ > 0 && first("differ", name))
      out.reference_error(
          field, fmt::format("{}: not deterministic: two runs on the same inputs differ on {} of {} elements of {} "
                             "(first {}: {} then {}){}; a reference must not read uninitialised memory, its "
                             "outputs' prior contents or state kept between calls",
                             c.context(), differ, va.size(), name, index_text(shape, first_differ),
                             value_text(va[first_differ]), value_text(vb[first_differ]),
                             c.spec->deterministic ? " bit for bit" : " beyond the tolerance"));
    if (non_finite > 0 && first("non_finite", name))
      out.reference_error(
          field, fmt::format("{}: {} of {} elements of output {} are not finite (first {}: {}) where the spec "
                             "promises finite outputs ({}); fix the reference, or declare \"finite\": false on "
                             "the tensor if NaN/Inf outputs are right here",
                             c.context(), non_finite, va.size(), name, index_text(shape, first_non_finite),
                             value_text(va[first_non_finite]),
                             t.finite ? "\"finite\": true" : "its inputs have no NaN, Inf or extreme specials"));
  }
  return clean;
}

}  // namespace

bool requires_finite(const core::TensorSpec& t, const core::Distribution& d) {
  if (t.finite) return *t.finite;
  for (const auto& [name, g] : d.tensors)
    for (const auto& s : g.specials)
      if (s == "nan" || s == "inf" || s == "-inf" || s == "max" || s == "lowest") return false;
  return true;
}

void check_reference_runs(const core::Spec& spec, eval::Reference& reference, const ReferenceCheckOptions& options,
                          Findings& out) {
  ToleranceSanity sanity(options.widespread_share);
  std::set<std::string> seen;
  for (size_t v = 0; v < spec.variants.size(); ++v)
    for (size_t w = 0; w < spec.test_workloads.size(); ++w)
      for (size_t d = 0; d < spec.distributions.size(); ++d) {
        Case c{&spec, v, w, &spec.variants[v], &spec.test_workloads[w], &spec.distributions[d], {}, {}};
        if (!fill_shapes(c)) continue;  // the loader has reported it
        auto drawn = draw_inputs(c, mix(options.seed ^ mix(v * 1000003 + w * 1009 + d)));
        if (!drawn) {
          out.spec_error("", c.context() + ": " + drawn.error().what());
          return;
        }
        const auto& inputs = *drawn;
        auto a = run_reference(reference, c, inputs, k_poison_nan);
        auto b = a ? run_reference(reference, c, inputs, k_poison_finite) : a;
        if (!a || !b) {
          out.reference_error("", c.context() + ": the reference failed: " + (a ? b : a).error().what() +
                                      " (the remaining reference checks are skipped)");
          return;
        }
        if (!check_runs(c, *a, *b, seen, out)) continue;
        sanity.check_representable(c, *a, out);
        bool moved = false;
        const auto perturbed = perturb_inputs(c, inputs, moved);
        if (!moved) continue;
        auto m = run_reference(reference, c, perturbed, k_poison_nan);
        if (!m) {
          out.reference_error("", c.context() + ", inputs moved one ulp: the reference failed: " + m.error().what());
          return;
        }
        sanity.add_perturbed(c, *a, *m);
      }
  sanity.report(spec, out);
}

}  // namespace kwb::speccheck
