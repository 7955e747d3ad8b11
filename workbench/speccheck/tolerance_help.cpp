// check_tolerance_headroom: the CPU template against the reference, per output and distribution.
#include "speccheck/tolerance_help.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <set>

#include "eval/compare.hpp"
#include "spec/shape_draw.hpp"
#include "speccheck/reference_run.hpp"

namespace kwb::speccheck {

using namespace detail;

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

bool exact(const core::Tolerance& t) { return t.exact || (t.atol == 0 && t.rtol == 0); }

std::string tolerance_text(const core::Tolerance& t) {
  return exact(t) ? "exact" : fmt::format("atol {:g}, rtol {:g}", t.atol, t.rtol);
}

// |got - want| as a share of what the tolerance allows there: 1 is the edge; infinite for a
// miss of the NaN/Inf rules or of an exact tolerance.
double share_of_tolerance(double got, double want, const core::Tolerance& tol) {
  double abs_err = 0, rel_err = 0;
  const bool ok = eval::within_tolerance(got, want, tol, abs_err, rel_err);
  if (!std::isfinite(got) || !std::isfinite(want) || exact(tol)) return ok ? 0 : std::numeric_limits<double>::infinity();
  const double allowed = tol.atol + tol.rtol * std::fabs(want);
  return allowed > 0 ? abs_err / allowed : (abs_err == 0 ? 0 : std::numeric_limits<double>::infinity());
}

// NaNs last, so that rows holding the same values sort alike.
void sort_rows(std::vector<double>& v, size_t row) {
  if (row == 0) return;
  auto before = [](double a, double b) { return std::isnan(a) ? false : std::isnan(b) ? true : a < b; };
  for (size_t i = 0; i + row <= v.size(); i += row) std::sort(v.begin() + long(i), v.begin() + long(i + row), before);
}

struct Worst {
  double share = 0;
  std::string at;  // the worst element, its run and values
  size_t runs = 0;
};

const core::TensorSpec* set_rule_naming(const core::Spec& spec, const std::string& values) {
  for (const auto& t : spec.tensors)
    if (t.set && t.set->values == values) return &t;
  return nullptr;
}

// The share of the tolerance the template's output `name` uses on one run (the worst element).
void add_run(const Case& c, const std::string& name, const Outputs& want, const Outputs& got, const Buffers& inputs,
             Worst& worst) {
  const core::TensorSpec* t = c.spec->find_tensor(name);
  const auto& shape = c.shapes.at(name);
  const size_t row = shape.empty() ? 1 : size_t(shape.back());
  ++worst.runs;
  if (t->set) {  // indices under a set rule: right or wrong as a set (docs/specs.md "Set outputs")
    const core::TensorSpec* of = c.spec->find_tensor(t->set->of);
    const bool has_values = !t->set->values.empty();
    const core::Tolerance value_tol = has_values ? c.variant->tolerance.at(t->set->values) : core::Tolerance{true, 0, 0};
    auto cmp = eval::compare_set(
        {got.at(name).data(), core::DType::f64}, want.at(name),
        has_values ? eval::TensorView{got.at(t->set->values).data(), core::DType::f64} : eval::TensorView{},
        has_values ? &want.at(t->set->values) : nullptr, {inputs.at(of->name).data(), c.variant->dtypes.at(of->name)},
        c.shapes.at(of->name).back(), value_tol, shape, name, t->set->values);
    if (cmp.indices.ok()) return;
    worst.share = std::numeric_limits<double>::infinity();
    worst.at = fmt::format("{} on {}", cmp.indices.detail, c.context());
    return;
  }
  std::vector<double> w = want.at(name), g = got.at(name);
  if (set_rule_naming(*c.spec, name)) {  // a set rule's values: compared as multisets per row
    sort_rows(w, row);
    sort_rows(g, row);
  }
  const core::Tolerance& tol = c.variant->tolerance.at(name);
  for (size_t i = 0; i < w.size(); ++i) {
    const double share = share_of_tolerance(g[i], w[i], tol);
    if (!(share > worst.share) && !worst.at.empty()) continue;
    worst.share = share;
    worst.at = fmt::format("element {} on {}: {:.9g}, the reference {:.9g}", index_text(shape, i), c.context(), g[i], w[i]);
  }
}

std::string workloads_text(const std::vector<core::Workload>& ws) {
  size_t probes = 0, drawn = 0;
  for (const auto& w : ws) (w.name.starts_with("probe:") ? probes : drawn) += w.drawn;
  return fmt::format("{} test workloads, {} edge probes, {} drawn shapes", ws.size() - probes - drawn, probes, drawn);
}

}  // namespace

std::vector<core::Workload> headroom_workloads(const core::Spec& spec, uint64_t seed) {
  std::vector<core::Workload> out = spec.test_workloads;
  if (!spec.shapes) return out;
  auto sampler = spec::ShapeSampler::make(spec);
  if (!sampler) return out;
  std::set<spec::Params> seen;
  for (const auto& w : out) seen.insert(w.params);
  std::map<std::string, double> scalars;  // probes take the far end of each scalar's range too
  for (const auto& r : spec.shapes->scalars) scalars[r.scalar] = r.hi;
  const auto& ranges = spec.shapes->ranges;
  for (size_t i = 0; i < ranges.size(); ++i)
    for (int64_t small = ranges[i].lo; small <= std::min(ranges[i].lo + 2, ranges[i].hi); ++small) {
      spec::Params p;
      for (const auto& r : ranges) p[r.param] = r.hi;
      p[ranges[i].param] = small;
      for (int halvings = 0; halvings < 64; ++halvings) {  // the others as large as allowed
        auto ok = sampler->accepts(p);
        if (!ok) break;  // the loader reports shapes the spec cannot describe
        if (*ok) {
          if (seen.insert(p).second) {
            core::Workload w;
            w.name = "probe:" + spec::drawn_name(spec, p).substr(6);
            w.params = p;
            w.scalars = scalars;
            w.drawn = true;
            out.push_back(std::move(w));
          }
          break;
        }
        bool changed = false;
        for (size_t j = 0; j < ranges.size(); ++j) {
          if (j == i) continue;
          const int64_t next = std::max(ranges[j].lo, p[ranges[j].param] / 2);
          changed = changed || next != p[ranges[j].param];
          p[ranges[j].param] = next;
        }
        if (!changed) break;
      }
    }
  core::Spec cheaper = spec;
  cheaper.shapes->max_elements = std::min(spec.shapes->max_elements, k_headroom_max_elements);
  for (uint64_t k = 0; k < 2; ++k) {
    auto drawn = spec::draw_workloads(cheaper, mix(seed + k));
    if (!drawn) break;  // too narrow under the lower cap: the test workloads and probes remain
    for (auto& w : *drawn)
      if (seen.insert(w.params).second) out.push_back(std::move(w));
  }
  return out;
}

void check_tolerance_headroom(const core::Spec& spec, eval::Reference& reference, const TemplateOpener& open_template,
                              const ReferenceCheckOptions& options, Findings& out) {
  if (!open_template) return;
  auto cpu = spec.templates.find("cpu");
  if (cpu == spec.templates.end()) return;
  const auto workloads = headroom_workloads(spec, options.seed);
  const auto folder = spec.file.parent_path();
  for (size_t v = 0; v < spec.variants.size(); ++v) {
    const core::Variant& var = spec.variants[v];
    auto file = cpu->second.find(var.name);
    if (file == cpu->second.end()) continue;
    const std::string template_path = (folder / file->second.file).string();
    auto tmpl = open_template(spec, var);
    if (!tmpl || !*tmpl) {
      out.add(template_path, "", Severity::error,
              "cannot run as a kernel for the tolerance headroom check: " +
                  (tmpl ? std::string("no template") : tmpl.error().what()));
      continue;
    }
    std::map<std::pair<std::string, size_t>, Worst> worst;  // (output, distribution)
    bool stop = false;
    for (size_t w = 0; w < workloads.size() && !stop; ++w)
      for (size_t d = 0; d < spec.distributions.size() && !stop; ++d) {
        Case c{&spec, v, w, &var, &workloads[w], &spec.distributions[d], {}, {}};
        if (!fill_shapes(c)) continue;
        auto inputs = draw_inputs(c, mix(options.seed ^ mix(v * 7919 + w * 104729 + d + 0x48454144)));
        if (!inputs) continue;  // the reference checks report generators that do not resolve
        auto want = run_reference(reference, c, *inputs, k_poison_nan);
        if (!want) return;  // the reference checks report the reference's failures
        auto got = run_reference(**tmpl, c, *inputs, k_poison_nan);
        if (!got) {
          out.add(template_path, "", Severity::error, c.context() + ": the template failed: " + got.error().what());
          stop = true;
          break;
        }
        for (const auto& [name, values] : *want) add_run(c, name, *want, *got, *inputs, worst[{name, d}]);
      }
    if (stop) continue;
    for (const auto& [key, s] : worst) {
      const auto& [name, d] = key;
      const core::Tolerance& tol = var.tolerance.at(name);
      const std::string field = fmt::format("variants[{}].tolerance.{}", v, name);
      const std::string head = fmt::format("{} under distribution {}: the CPU template ({}, a same-precision kernel) "
                                           "on the reference's inputs over {} runs ({})",
                                           name, spec.distributions[d].name, file->second.file, s.runs,
                                           workloads_text(workloads));
      if (s.share > 1) {
        out.spec_error(field, fmt::format("{} misses the tolerance ({}) by {:.3g}x: {}; an honest kernel of the same "
                                          "precision would be rejected: loosen the tolerance (or fix the template)",
                                          head, tolerance_text(tol), s.share, s.at));
      } else if (s.share > k_headroom_share) {
        out.spec_warning(field, fmt::format("{} uses {:.0f} % of the tolerance ({}), less than 2x headroom: {}; a kernel "
                                            "that sums in another order may miss it",
                                            head, 100 * s.share, tolerance_text(tol), s.at));
      } else if (exact(tol) || s.share == 0) {
        out.spec_note(field, fmt::format("{} matches the reference exactly on every element ({})", head,
                                         tolerance_text(tol)));
      } else {
        out.spec_note(field, fmt::format("{} uses at most {:.2g} % of the tolerance ({}): {:.3g}x headroom; worst {}",
                                         head, 100 * s.share, tolerance_text(tol), 1 / s.share, s.at));
      }
    }
  }
}

}  // namespace kwb::speccheck
