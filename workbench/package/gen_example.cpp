// example/main.cpp: for every exported function and backend, the spec's test workloads (and, on
// CUDA, its cheaper bench workloads) with inputs drawn like the spec's first distribution (its
// special values left out; bounds written as expressions evaluated here, per workload, by the
// workbench's spec::resolve_generator), the workload's scalars, the exported function against the
// op's trusted reference, compared with the variant's tolerances (set outputs as sets). One line
// per function and backend; exit status 1 on any mismatch or error.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "package/cxx.hpp"
#include "package/model.hpp"
#include "spec/expr.hpp"
#include "spec/generators.hpp"
#include "spec/loader.hpp"

namespace kwb::package {

namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// A generator resolved for one workload (spec::resolve_generator: bounds evaluated from the
// params), as kwbx::Gen{kind, a, b, end, min_length, max_length, per_row} (example/check.hpp).
std::string generator(const core::Generator& g) {
  double a = g.lo, b = g.hi;
  if (g.kind == "normal") a = g.mean, b = g.stddev;
  if (g.kind == "constant") a = g.value, b = 0;
  const std::string kind = g.kind.empty() ? "constant" : g.kind;
  return fmt::format("kwbx::Gen{{kwbx::Gen::{}, {:.17g}, {:.17g}, {:.17g}, {:.17g}, {:.17g}, {}}}", kind, a, b, g.end,
                     g.min_length, g.max_length, g.per_row);
}

std::string dtype_enum(core::DType t) { return fmt::format("kwbx::DType::{}", core::dtype_name(t)); }

// The output that reports the values of a set rule's indices (compared with them), if `name` is one.
bool is_set_values(const core::Spec& s, const std::string& name) {
  for (const auto& t : s.tensors)
    if (t.set && t.set->values == name) return true;
  return false;
}

size_t index_of(const std::vector<const core::TensorSpec*>& tensors, const std::string& name) {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i]->name == name) return i;
  return tensors.size();
}

// One row of the function's case table: {name, params, scalars, sizes, last dims, generators, seed, cpu, cuda}.
util::Result<std::string> case_row(const Target& t, const core::Workload& w, bool bench, bool cpu, bool cuda) {
  const core::Spec& s = *t.spec;
  const auto tensors = s.tensors_of(*t.variant);
  std::string params, scalars, sizes, last, gens;
  for (const auto& p : s.params) params += fmt::format("{}{}", params.empty() ? "" : ", ", w.params.at(p));
  for (const auto& x : s.scalars) {
    auto it = w.scalars.find(x.name);
    scalars += fmt::format("{}{:.17g}", scalars.empty() ? "" : ", ", it != w.scalars.end() ? it->second : x.value.value_or(0));
  }
  const std::string name = (bench ? "bench " : "") + w.name;
  for (const auto* tensor : tensors) {
    auto shape = spec::tensor_shape(s, *tensor, w.params);
    if (!shape) return std::unexpected(shape.error());
    size_t n = 1;
    for (int64_t d : *shape) n *= size_t(d);
    sizes += fmt::format("{}{}", sizes.empty() ? "" : ", ", n);
    last += fmt::format("{}{}", last.empty() ? "" : ", ", shape->empty() ? 1 : shape->back());
    core::Generator g;  // outputs: not drawn
    if (tensor->role != core::Role::out) {
      auto r = spec::resolve_generator(s, 0, tensor->name, w.params, name);
      if (!r) return util::fail(r.error().where, r.error().message);
      g = *r;
    }
    gens += fmt::format("{}\n         {}", gens.empty() ? "" : ",", generator(g));
  }
  return fmt::format("      {{{}, {{{}}}, {{{}}}, {{{}}}, {{{}}}, {{{}}},\n       {:#x}ull, {}, {}}},\n", cxx_string(name),
                     params, scalars, sizes, last, gens, fnv1a(t.function + "/" + name), cpu, cuda);
}

util::Result<std::string> check_function(const Target& t) {
  const core::Spec& s = *t.spec;
  const auto tensors = s.tensors_of(*t.variant);
  const size_t nt = tensors.size(), np = s.params.size(), ns = s.scalars.size();
  std::string cases;
  // Test workloads on both backends; on the CUDA backend also the bench workloads whose reference
  // stays cheap (roofline bytes <= 512 MiB and flops <= 2^31): they reach the configs and the code
  // paths (large dynamic shared memory, multi-block rows) that the small sizes do not.
  std::vector<std::pair<const core::Workload*, bool>> workloads;
  for (const auto& w : s.test_workloads) workloads.push_back({&w, false});
  for (const auto& w : s.bench_workloads) workloads.push_back({&w, true});
  for (const auto& [w, bench] : workloads) {
    bool cpu = w->runs_on(core::Backend::cpu), cuda = w->runs_on(core::Backend::cuda);
    if (bench) {
      const spec::Env env(w->params.begin(), w->params.end());
      auto bytes = spec::evaluate(t.variant->roofline.bytes, env), flops = spec::evaluate(t.variant->roofline.flops, env);
      cpu = false;
      cuda = cuda && bytes && flops && *bytes <= (int64_t(1) << 29) && *flops <= (int64_t(1) << 31);
      if (!cuda) continue;
    }
    auto row = case_row(t, *w, bench, cpu, cuda);
    if (!row) return row;
    cases += *row;
  }
  std::string out = fmt::format("bool check_{}(kwbx::Backend kwb_backend) {{\n  kwbx::Report kwb_report(\"{}\", kwb_backend);\n", t.function, t.function);
  out += fmt::format("  struct KwbCase {{\n    const char* name;\n    int64_t params[{}];\n    double scalars[{}];\n"
                     "    size_t sizes[{}], last[{}];\n    kwbx::Gen gens[{}];\n    uint64_t seed;\n    bool cpu, cuda;\n  }};\n"
                     "  static const KwbCase kwb_cases[] = {{\n{}  }};\n",
                     std::max<size_t>(np, 1), std::max<size_t>(ns, 1), nt, nt, nt, cases);
  out += "  for (const KwbCase& kwb_case : kwb_cases) {\n    if (!(kwb_backend == kwbx::Backend::cpu ? kwb_case.cpu : kwb_case.cuda)) continue;\n    kwbx::Rng kwb_rng(kwb_case.seed);\n";
  for (size_t i = 0; i < np; ++i) out += fmt::format("    const int64_t {} = kwb_case.params[{}];\n", cxx_name(s.params[i]), i);
  for (size_t i = 0; i < ns; ++i) out += fmt::format("    const double {} = kwb_case.scalars[{}];\n", cxx_name(s.scalars[i].name), i);
  std::string call, inputs, outputs, compares;
  auto data_of = [&](const core::TensorSpec& x) {  // an input's values as drawn
    return x.role == core::Role::inout ? "kwb_before_" + cxx_name(x.name) : cxx_name(x.name);
  };
  for (size_t i = 0; i < nt; ++i) {
    const auto& tensor = *tensors[i];
    const core::DType dt = t.variant->dtypes.at(tensor.name);
    const std::string v = cxx_name(tensor.name), type(cxx_type(dt));
    out += fmt::format("    std::vector<{}> {}(kwb_case.sizes[{}]);\n", type, v, i);
    if (tensor.role == core::Role::out) {
      out += fmt::format("    kwbx::poison({});\n", v);
      outputs += fmt::format("    std::vector<double> kwb_want_{0}(kwb_case.sizes[{1}]);\n    kwb_ref.outputs[\"{2}\"] = kwb_want_{0}.data();\n", v, i, tensor.name);
    } else {
      out += fmt::format("    kwbx::fill({}, {}, kwb_case.gens[{}], kwb_rng, kwb_case.last[{}]);\n", v, dtype_enum(dt), i, i);
    }
    if (tensor.role == core::Role::inout) {
      out += fmt::format("    const std::vector<{0}> kwb_before_{1} = {1};\n", type, v);
      inputs += fmt::format("    kwb_ref.inputs[\"{}\"] = kwb_before_{}.data();\n", tensor.name, v);
      outputs += fmt::format("    std::vector<double> kwb_want_{0}(kwb_case.sizes[{1}]);\n    kwb_ref.outputs[\"{2}\"] = kwb_want_{0}.data();\n", v, i, tensor.name);
    } else if (tensor.role == core::Role::in) {
      inputs += fmt::format("    kwb_ref.inputs[\"{}\"] = {}.data();\n", tensor.name, v);
    }
    call += fmt::format("{}kwb_stage.{}({})", call.empty() ? "" : ", ", tensor.role == core::Role::in ? "in" : "out", v);
    if (tensor.role == core::Role::in || is_set_values(s, tensor.name)) continue;
    auto tol_of = [&](const std::string& name) {
      const auto& tol = t.variant->tolerance.at(name);
      return fmt::format("kwbx::Tol{{{}, {:.17g}, {:.17g}}}", tol.exact ? "true" : "false", tol.atol, tol.rtol);
    };
    if (!tensor.set) {
      compares += fmt::format("    kwb_report.compare(kwb_case.name, \"{}\", {}, {}, kwb_want_{}, {});\n", tensor.name, v,
                              dtype_enum(dt), v, tol_of(tensor.name));
      continue;
    }
    // A set rule (docs/specs.md "Set outputs"): with its values output, under the values' tolerance.
    const auto* of = s.find_tensor(tensor.set->of);
    const size_t of_index = index_of(tensors, tensor.set->of);
    if (!of || of_index == nt) return util::fail(s.file.string(), "set rule of '" + tensor.name + "': no input '" + tensor.set->of + "'");
    const std::string& values = tensor.set->values;
    const bool has_values = !values.empty() && t.variant->has(values);
    compares += fmt::format(
        "    kwbx::compare_set(kwb_report, kwb_case.name, \"{}\", kwbx::view({}, {}), kwb_want_{}, \"{}\", {}, {}, "
        "kwbx::view({}, {}), kwb_case.last[{}], kwb_case.last[{}], {});\n",
        tensor.name, v, dtype_enum(dt), v, values,
        has_values ? fmt::format("kwbx::view({}, {})", cxx_name(values), dtype_enum(t.variant->dtypes.at(values))) : "kwbx::View{}",
        has_values ? "&kwb_want_" + cxx_name(values) : "nullptr", data_of(*of), dtype_enum(t.variant->dtypes.at(of->name)),
        of_index, i, tol_of(has_values ? values : tensor.name));
  }
  for (const auto& p : s.params) call += ", " + cxx_name(p);
  for (const auto& x : s.scalars) call += ", " + cxx_name(x.name);
  out += fmt::format("    kwbx::Staging kwb_stage(kwb_backend);\n    int kwb_rc = kwb::{}({});\n    kwb_rc = kwb_stage.finish(kwb_rc);\n", t.function, call);
  out += "    if (kwb_rc != kwb::ok) {\n      kwb_report.error(kwb_case.name, kwb_rc, kwb_stage.error().empty() ? kwb::last_error() : kwb_stage.error());\n      continue;\n    }\n";
  std::string params_map, scalars_map;
  for (const auto& p : s.params) params_map += fmt::format("{}{{\"{}\", {}}}", params_map.empty() ? "" : ", ", p, cxx_name(p));
  for (const auto& x : s.scalars)
    scalars_map += fmt::format("{}{{\"{}\", {}}}", scalars_map.empty() ? "" : ", ", x.name, cxx_name(x.name));
  out += fmt::format("    kwb::core::ReferenceArgs kwb_ref;\n    kwb_ref.variant = {};\n    kwb_ref.params = {{{}}};\n",
                     cxx_string(t.variant->name), params_map);
  if (ns) out += fmt::format("    kwb_ref.scalars = {{{}}};\n", scalars_map);
  out += inputs + outputs + fmt::format("    kwb::reference::{}(kwb_ref);\n", s.op) + compares;
  return out + "  }\n  return kwb_report.finish();\n}\n\n";
}

}  // namespace

util::Result<std::string> render_example(const Package& pkg) {
  std::string out = R"kwb(// Generated by `kwb export`: checks every exported function against its op's trusted reference
// (reference/<op>.cpp, copied from the workbench's specs) on the spec's test workloads (on CUDA
// also the bench workloads of at most 512 MiB and 2^31 flops), with inputs drawn like the spec's
// first distribution (without its special values; bounds evaluated for each workload) and the
// tolerances of the spec's variant: |got - want| <= atol + rtol * |want|, integers exactly, fp8
// outputs decoded first; index outputs under a set rule row by row as sets (the values must match,
// the indices point at equal values, in any order). One line per function and backend
// (PASS, FAIL or SKIP); the exit status is 1 when any line is FAIL. KWB_CONFIG_INDEX=N runs every
// CUDA call with config N (README.md).
#include "check.hpp"
#include "kwb/kernels.hpp"

namespace kwb::reference {
)kwb";
  std::set<std::string> ops;
  for (const auto& t : pkg.targets) ops.insert(t.spec->op);
  for (const auto& op : ops) out += fmt::format("void {}(const core::ReferenceArgs& a);\n", op);
  out += "}  // namespace kwb::reference\n\nnamespace {\n\n";
  for (const auto& t : pkg.targets) {
    auto f = check_function(t);
    if (!f) return util::fail(t.spec->file.string(), f.error().what());
    out += *f;
  }
  out += "}  // namespace\n\nint main() {\n  bool passed = true;\n";
  for (const auto& t : pkg.targets) {
    if (t.cpu || !t.cpu_regions.empty())
      out += fmt::format("  passed &= kwbx::run(\"{0}\", check_{0}, kwbx::Backend::cpu);\n", t.function);
    else out += fmt::format("  kwbx::skip(\"{}\", kwbx::Backend::cpu, \"no CPU kernel in this package\");\n", t.function);
  }
  out += "#ifdef KWB_WITH_CUDA\n  const std::string no_device = kwbx::cuda_unavailable();\n";
  for (const auto& t : pkg.targets) {
    if (!t.cuda) out += fmt::format("  kwbx::skip(\"{}\", kwbx::Backend::cuda, \"no CUDA kernel in this package\");\n", t.function);
    else out += fmt::format("  if (no_device.empty()) passed &= kwbx::run(\"{0}\", check_{0}, kwbx::Backend::cuda);\n  else kwbx::skip(\"{0}\", kwbx::Backend::cuda, no_device);\n", t.function);
  }
  out += "#endif\n  return passed ? 0 : 1;\n}\n";
  return out;
}

}  // namespace kwb::package
