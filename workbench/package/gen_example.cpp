// example/main.cpp: for every exported function and backend, the spec's test workloads (and, on
// CUDA, its cheaper bench workloads) with inputs drawn like the spec's first distribution (its
// special values left out), the exported function against the op's trusted reference, compared
// with the variant's tolerances. One line per function and backend; exit status 1 on any mismatch
// or error.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "package/cxx.hpp"
#include "package/model.hpp"
#include "spec/expr.hpp"

namespace kwb::package {

namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string generator(const core::Generator& g) {
  if (g.kind == "uniform") return fmt::format("kwbx::Gen{{kwbx::Gen::uniform, {:.17g}, {:.17g}}}", g.lo, g.hi);
  if (g.kind == "normal") return fmt::format("kwbx::Gen{{kwbx::Gen::normal, {:.17g}, {:.17g}}}", g.mean, g.stddev);
  if (g.kind == "int_uniform") return fmt::format("kwbx::Gen{{kwbx::Gen::int_uniform, {:.17g}, {:.17g}}}", g.lo, g.hi);
  return fmt::format("kwbx::Gen{{kwbx::Gen::constant, {:.17g}, 0}}", g.value);
}

std::string dtype_enum(core::DType t) { return fmt::format("kwbx::DType::{}", core::dtype_name(t)); }

util::Result<std::string> check_function(const Target& t) {
  const core::Spec& s = *t.spec;
  const size_t nt = s.tensors.size(), np = s.params.size();
  std::string cases;
  // Test workloads on both backends; on the CUDA backend also the bench workloads whose reference
  // stays cheap (roofline bytes <= 512 MiB and flops <= 2^31): they reach the configs and the code
  // paths (large dynamic shared memory, multi-block rows) that the small sizes do not.
  std::vector<std::pair<const core::Workload*, bool>> workloads;
  for (const auto& w : s.test_workloads) workloads.push_back({&w, false});
  for (const auto& w : s.bench_workloads) workloads.push_back({&w, true});
  for (const auto& [w, bench] : workloads) {
    std::string params, sizes;
    for (const auto& p : s.params) params += fmt::format("{}{}", params.empty() ? "" : ", ", w->params.at(p));
    for (const auto& tensor : s.tensors) {
      auto shape = spec::tensor_shape(s, tensor, w->params);
      if (!shape) return std::unexpected(shape.error());
      size_t n = 1;
      for (int64_t d : *shape) n *= size_t(d);
      sizes += fmt::format("{}{}", sizes.empty() ? "" : ", ", n);
    }
    bool cpu = w->runs_on(core::Backend::cpu), cuda = w->runs_on(core::Backend::cuda);
    if (bench) {
      const spec::Env env(w->params.begin(), w->params.end());
      auto bytes = spec::evaluate(t.variant->roofline.bytes, env), flops = spec::evaluate(t.variant->roofline.flops, env);
      cpu = false;
      cuda = cuda && bytes && flops && *bytes <= (int64_t(1) << 29) && *flops <= (int64_t(1) << 31);
      if (!cuda) continue;
    }
    const std::string name = (bench ? "bench " : "") + w->name;
    cases += fmt::format("      {{{}, {{{}}}, {{{}}}, {:#x}ull, {}, {}}},\n", cxx_string(name), params, sizes,
                         fnv1a(t.function + "/" + name), cpu, cuda);
  }
  std::string out = fmt::format("bool check_{}(kwbx::Backend kwb_backend) {{\n  kwbx::Report kwb_report(\"{}\", kwb_backend);\n", t.function, t.function);
  out += fmt::format("  struct KwbCase {{\n    const char* name;\n    int64_t params[{}];\n    size_t sizes[{}];\n"
                     "    uint64_t seed;\n    bool cpu, cuda;\n  }};\n  static const KwbCase kwb_cases[] = {{\n{}  }};\n",
                     std::max<size_t>(np, 1), nt, cases);
  out += "  for (const KwbCase& kwb_case : kwb_cases) {\n    if (!(kwb_backend == kwbx::Backend::cpu ? kwb_case.cpu : kwb_case.cuda)) continue;\n    kwbx::Rng kwb_rng(kwb_case.seed);\n";
  for (size_t i = 0; i < np; ++i) out += fmt::format("    const int64_t {} = kwb_case.params[{}];\n", cxx_name(s.params[i]), i);
  const auto& dist = s.distributions.front();
  std::string call, inputs, outputs, compares;
  for (size_t i = 0; i < nt; ++i) {
    const auto& tensor = s.tensors[i];
    const core::DType dt = t.variant->dtypes.at(tensor.name);
    const std::string v = cxx_name(tensor.name), type(cxx_type(dt));
    out += fmt::format("    std::vector<{}> {}(kwb_case.sizes[{}]);\n", type, v, i);
    if (tensor.role == core::Role::out) {
      out += fmt::format("    kwbx::poison({});\n", v);
      outputs += fmt::format("    std::vector<double> kwb_want_{0}(kwb_case.sizes[{1}]);\n    kwb_ref.outputs[\"{2}\"] = kwb_want_{0}.data();\n", v, i, tensor.name);
    } else {
      out += fmt::format("    kwbx::fill({}, {}, {}, kwb_rng);\n", v, dtype_enum(dt), generator(dist.tensors.at(tensor.name)));
    }
    if (tensor.role == core::Role::inout) {
      out += fmt::format("    const std::vector<{0}> kwb_before_{1} = {1};\n", type, v);
      inputs += fmt::format("    kwb_ref.inputs[\"{}\"] = kwb_before_{}.data();\n", tensor.name, v);
      outputs += fmt::format("    std::vector<double> kwb_want_{0}(kwb_case.sizes[{1}]);\n    kwb_ref.outputs[\"{2}\"] = kwb_want_{0}.data();\n", v, i, tensor.name);
    } else if (tensor.role == core::Role::in) {
      inputs += fmt::format("    kwb_ref.inputs[\"{}\"] = {}.data();\n", tensor.name, v);
    }
    call += fmt::format("{}kwb_stage.{}({})", call.empty() ? "" : ", ", tensor.role == core::Role::in ? "in" : "out", v);
    if (tensor.role != core::Role::in) {
      const auto& tol = t.variant->tolerance.at(tensor.name);
      compares += fmt::format("    kwb_report.compare(kwb_case.name, \"{}\", {}, {}, kwb_want_{}, kwbx::Tol{{{}, {:.17g}, {:.17g}}});\n", tensor.name,
                              v, dtype_enum(dt), v, tol.exact ? "true" : "false", tol.atol, tol.rtol);
    }
  }
  for (const auto& p : s.params) call += ", " + cxx_name(p);
  out += fmt::format("    kwbx::Staging kwb_stage(kwb_backend);\n    int kwb_rc = kwb::{}({});\n    kwb_rc = kwb_stage.finish(kwb_rc);\n", t.function, call);
  out += "    if (kwb_rc != kwb::ok) {\n      kwb_report.error(kwb_case.name, kwb_rc, kwb_stage.error().empty() ? kwb::last_error() : kwb_stage.error());\n      continue;\n    }\n";
  std::string params_map;
  for (const auto& p : s.params) params_map += fmt::format("{}{{\"{}\", {}}}", params_map.empty() ? "" : ", ", p, cxx_name(p));
  out += fmt::format("    kwb::core::ReferenceArgs kwb_ref;\n    kwb_ref.variant = {};\n    kwb_ref.params = {{{}}};\n", cxx_string(t.variant->name), params_map);
  out += inputs + outputs + fmt::format("    kwb::reference::{}(kwb_ref);\n", s.op) + compares;
  return out + "  }\n  return kwb_report.finish();\n}\n\n";
}

}  // namespace

util::Result<std::string> render_example(const Package& pkg) {
  std::string out = R"kwb(// Generated by `kwb export`: checks every exported function against its op's trusted reference
// (reference/<op>.cpp, copied from the workbench's specs) on the spec's test workloads (on CUDA
// also the bench workloads of at most 512 MiB and 2^31 flops), with inputs drawn like the spec's
// first distribution (without its special values) and the tolerances of the spec's variant:
// |got - want| <= atol + rtol * |want|, integers exactly. One line per function and backend
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
    if (t.cpu) out += fmt::format("  passed &= kwbx::run(\"{0}\", check_{0}, kwbx::Backend::cpu);\n", t.function);
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
