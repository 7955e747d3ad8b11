// src/<function>.cpp: the exported function — argument checks, then the CUDA launch plan for
// device pointers (with KWB_WITH_CUDA) or the CPU kernel for host pointers.
#include <limits>

#include <fmt/format.h>

#include "package/cxx.hpp"
#include "package/model.hpp"

namespace kwb::package {

namespace {

std::map<std::string, std::string> param_names(const core::Spec& spec) {
  std::map<std::string, std::string> names;
  for (const auto& p : spec.params) names[p] = cxx_name(p);
  return names;
}

// "" when every tensor is guaranteed `need` bytes by the spec (core::tensor_alignment), else the
// C++ test that the tensors that are not have it at run time.
std::string alignment_test(const Target& t, size_t need) {
  std::string bits;
  for (const auto* tensor : t.spec->tensors_of(*t.variant))  // an optional tensor the variant omits is no argument
    if (core::tensor_alignment(*t.spec, t.variant->dtypes.at(tensor->name)) < need)
      bits += fmt::format("{}reinterpret_cast<std::uintptr_t>({})", bits.empty() ? "" : " | ", cxx_name(tensor->name));
  return bits.empty() ? "" : fmt::format("(({}) % {} == 0)", bits, need);
}

// The error when no kernel can take tensors aligned as they are: which kernel needs how much.
std::string misaligned_failure(const Target& t, const std::string& kernel, size_t need) {
  return fmt::format("return rt::fail(no_kernel, \"kwb::{}: the kernel {} needs every tensor aligned to {} bytes (its "
                     "metadata's alignment) and these are not; {}/{} guarantees only each dtype's size{}\");\n",
                     t.function, kernel, need, t.spec->op, t.variant->name,
                     t.spec->alignment ? fmt::format(" or {} bytes", t.spec->alignment) : "");
}

util::Result<std::string> tensor_checks(const Target& t) {
  std::string out;
  const auto names = param_names(*t.spec);
  for (const auto* tensor : t.spec->tensors_of(*t.variant)) {
    std::string dims;
    for (const auto& d : tensor->shape) {
      auto e = cxx_expr(d, names);
      if (!e) return util::fail(t.spec->file.string() + ": tensor '" + tensor->name + "' shape", e.error().what());
      dims += fmt::format("{}{{{}, {}}}", dims.empty() ? "" : ", ", cxx_string(d), *e);
    }
    out += fmt::format("  if (int kwb_rc = rt::check_tensor(\"{}\", \"{}\", {}, {{{}}})) return kwb_rc;\n", t.function,
                       tensor->name, cxx_name(tensor->name), dims);
  }
  return out;
}

// The launches of one config: workspace, then each kernel in order on the stream.
util::Result<std::string> config_case(const Target& t, size_t index) {
  const CudaKernel& k = *t.cuda;
  const CudaConfig& c = k.configs[index];
  auto names = param_names(*t.spec);
  for (const auto& [name, value] : c.tune) names[name] = std::to_string(value);
  const std::string where = k.path + " (config " + c.label + ")";
  auto expr = [&](const std::string& text) -> util::Result<std::string> {
    auto e = cxx_expr(text, names);
    if (!e) return util::fail(where, e.error().what());
    return e;
  };
  auto list = [&](const std::vector<std::string>& texts) -> util::Result<std::string> {
    std::string s;
    for (const auto& x : texts) {
      auto e = expr(x);
      if (!e) return e;
      s += (s.empty() ? "" : ", ") + *e;
    }
    return s;
  };
  std::string out = fmt::format("    case {}: {{  // {}\n", index, c.label);
  auto ws = expr(k.plan.workspace_bytes.empty() ? "0" : k.plan.workspace_bytes);
  if (!ws) return ws;
  out += fmt::format("      if (int kwb_e = rt::workspace_alloc(\"{}\", {}, &kwb_ws, stream)) return kwb_e;\n", t.function, *ws);
  for (size_t i = 0; i < k.plan.launches.size(); ++i) {
    const auto& l = k.plan.launches[i];
    std::string args;
    for (const auto& a : l.args) {
      std::string name = a.kind == core::LaunchArg::Kind::workspace ? "kwb_ws" : cxx_name(a.name);
      args += (args.empty() ? "" : ", ") + ("(void*)&" + name);
    }
    auto grid = list(l.grid), block = list(l.block), smem = expr(l.smem);
    if (!grid) return grid;
    if (!block) return block;
    if (!smem) return smem;
    out += fmt::format("      if (kwb_rc == ok) {{\n        void* kwb_args[] = {{{}}};\n", args);
    out += fmt::format("        kwb_rc = rt::launch(\"{}\", \"{}\", {}[{}], {{{}}}, {{{}}}, {}, kwb_args, stream);\n      }}\n",
                       t.function, l.kernel, c.table, i, *grid, *block, *smem);
  }
  return out + "      break;\n    }\n";
}

util::Result<std::string> cuda_part(const Target& t) {
  const CudaKernel& k = *t.cuda;
  std::string out = "#ifdef KWB_WITH_CUDA\n";
  for (const auto& c : k.configs) out += fmt::format("extern \"C\" const void* const {}[];  // {}\n", c.table, c.label);
  out += "\nnamespace kwb {\nnamespace {\n\n";
  std::string elements, configs;
  for (const auto& p : k.picks) {
    elements += fmt::format("{}{:.17g} /* {} */", elements.empty() ? "" : ", ", p.elements, p.workload);
    configs += fmt::format("{}{}", configs.empty() ? "" : ", ", p.config);
  }
  if (!k.picks.empty()) {
    out += fmt::format("// Element counts (products of the params) of the measured workloads, and their configs.\n");
    out += fmt::format("constexpr double k_pick_elements[] = {{{}}};\nconstexpr size_t k_pick_configs[] = {{{}}};\n\n",
                       elements, configs);
  }
  std::string count = "1.0";
  for (const auto& p : t.spec->params) count += " * double(" + cxx_name(p) + ")";
  out += fmt::format("int {}_cuda({}, void* stream) {{\n", t.function, signature(t));
  out += fmt::format("  const size_t kwb_config = rt::pick_config({}, {}, {}, {}, {});\n",
                     k.picks.empty() ? "nullptr" : "k_pick_elements", k.picks.empty() ? "nullptr" : "k_pick_configs",
                     k.picks.size(), k.configs.size(), count);
  out += "  void* kwb_ws = nullptr;\n  int kwb_rc = ok;\n  switch (kwb_config) {\n";
  for (size_t i = 0; i < k.configs.size(); ++i) {
    auto c = config_case(t, i);
    if (!c) return c;
    out += *c;
  }
  out += fmt::format("    default:\n      return rt::fail(invalid_argument, \"kwb::{}: no config \" + std::to_string(kwb_config));\n  }}\n",
                     t.function);
  out += fmt::format("  const int kwb_freed = rt::workspace_free(\"{}\", kwb_ws, stream);\n", t.function);
  out += "  return kwb_rc != ok ? kwb_rc : kwb_freed;\n}\n\n}  // namespace\n}  // namespace kwb\n#endif\n\n";
  return out;
}

// The calls of the shape regions' kernels (docs/library.md "Shape regions"), in the dispatch's
// lookup order: each where the params lie in its region, the CPU has its level and the tensors
// its alignment; a call that none takes goes on to the whole-space kernel.
util::Result<std::string> region_calls(const Target& t) {
  std::string out;
  const auto names = param_names(*t.spec);
  for (const auto& r : t.cpu_regions) {
    std::string cond;
    for (const auto& [param, range] : r.region.bounds) {
      auto name = names.find(param);
      if (name == names.end())
        return util::fail(r.kernel.path + ": region." + param, "not a param of " + t.spec->op + " (" + t.spec->file.string() + ")");
      if (range.first != std::numeric_limits<int64_t>::min())
        cond += fmt::format("{}{} >= {}LL", cond.empty() ? "" : " && ", name->second, range.first);
      if (range.second != std::numeric_limits<int64_t>::max())
        cond += fmt::format("{}{} <= {}LL", cond.empty() ? "" : " && ", name->second, range.second);
    }
    if (r.kernel.level > 1) cond += fmt::format("{}rt::cpu_level() >= {}", cond.empty() ? "" : " && ", r.kernel.level);
    if (auto aligned = alignment_test(t, r.kernel.alignment); !aligned.empty())
      cond += (cond.empty() ? "" : " && ") + aligned;
    out += fmt::format("  if ({}) {{  // {}: {}\n    {}({});\n    return rt::succeed();\n  }}\n", cond.empty() ? "true" : cond,
                       r.region.text(), r.kernel.path, r.kernel.symbol, argument_names(t));
  }
  return out;
}

}  // namespace

util::Result<std::string> render_dispatcher(const Target& t) {
  std::string out = fmt::format("// Generated by `kwb export`: kwb::{} ({}/{}).\n", t.function, t.spec->op, t.variant->name);
  for (const auto& r : t.cpu_regions)
    out += fmt::format("//   cpu for {}: {} ({}, device class {})\n", r.region.text(), r.kernel.path, r.kernel.entry,
                       r.kernel.device_class);
  if (t.cpu) out += fmt::format("//   cpu:  {} ({}, device class {})\n", t.cpu->path, t.cpu->entry, t.cpu->device_class);
  if (t.cpu_baseline)
    out += fmt::format("//   cpu below x86-64-v{}: {} ({}, device class {})\n", t.cpu->level, t.cpu_baseline->path,
                       t.cpu_baseline->entry, t.cpu_baseline->device_class);
  if (t.cuda) {
    std::string labels;
    for (const auto& c : t.cuda->configs) labels += (labels.empty() ? "" : "; ") + c.label;
    out += fmt::format("//   cuda: {} (device class {}), configs: {}\n", t.cuda->path, t.cuda->device_class, labels);
  }
  out += "#include \"runtime.hpp\"\n\nusing kwb::rt::I;\n\n";
  for (const auto* k : cpu_kernels(t))
    out += fmt::format("extern \"C\" void {}({});  // {}: {}\n", k->symbol, signature(t), k->unit, k->path);
  if (!cpu_kernels(t).empty()) out += "\n";
  if (t.cuda) {
    auto c = cuda_part(t);
    if (!c) return c;
    out += *c;
  }
  auto checks = tensor_checks(t);
  if (!checks) return checks;
  out += fmt::format("namespace kwb {{\n\nint {}({}, void* stream) {{\n", t.function, signature(t));
  out += *checks;
  std::string located;
  for (const auto* tensor : t.spec->tensors_of(*t.variant))
    located += fmt::format("{}{{\"{}\", {}}}", located.empty() ? "" : ", ", tensor->name, cxx_name(tensor->name));
  out += "#ifdef KWB_WITH_CUDA\n  bool kwb_on_device = false;\n";
  out += fmt::format("  if (int kwb_rc = rt::locate(\"{}\", {{{}}}, kwb_on_device)) return kwb_rc;\n", t.function, located);
  if (t.cuda) {
    out += "  if (kwb_on_device) {\n";
    if (auto test = alignment_test(t, t.cuda->alignment); !test.empty())
      out += fmt::format("    if (!{})\n      {}", test, misaligned_failure(t, t.cuda->path, t.cuda->alignment));
    out += fmt::format("    const int kwb_rc = {}_cuda({}, stream);\n    return kwb_rc == ok ? rt::succeed() : kwb_rc;\n  }}\n",
                       t.function, argument_names(t));
  }
  else
    out += fmt::format("  if (kwb_on_device)\n    return rt::fail(no_kernel, \"kwb::{}: the tensors are in device memory and this package has no CUDA kernel for {}/{}\");\n",
                       t.function, t.spec->op, t.variant->name);
  out += "#endif\n  (void)stream;\n";
  auto regions = region_calls(t);
  if (!regions) return regions;
  out += *regions;
  const std::string cpu_aligned = t.cpu ? alignment_test(t, t.cpu->alignment) : "";
  const std::string baseline_aligned = t.cpu_baseline ? alignment_test(t, t.cpu_baseline->alignment) : "";
  if (t.cpu && t.cpu->level > 1) {
    // Compiled for an x86-64 level above the baseline: only on a CPU that has it (and, where the
    // kernel needs more alignment than the spec guarantees, for tensors that have it).
    out += fmt::format("  if (rt::cpu_level() >= {}{}) {{\n    {}({});\n    return rt::succeed();\n  }}\n", t.cpu->level,
                       cpu_aligned.empty() ? "" : " && " + cpu_aligned, t.cpu->symbol, argument_names(t));
    if (t.cpu_baseline && baseline_aligned.empty())
      out += fmt::format("  {}({});  // the baseline kernel\n  return rt::succeed();\n", t.cpu_baseline->symbol,
                         argument_names(t));
    else if (t.cpu_baseline)
      out += fmt::format("  if ({}) {{\n    {}({});  // the baseline kernel\n    return rt::succeed();\n  }}\n  {}",
                         baseline_aligned, t.cpu_baseline->symbol, argument_names(t),
                         misaligned_failure(t, t.cpu_baseline->path, t.cpu_baseline->alignment));
    else if (!cpu_aligned.empty())
      out += fmt::format("  if (rt::cpu_level() >= {})\n    {}", t.cpu->level, misaligned_failure(t, t.cpu->path, t.cpu->alignment)) +
             fmt::format("  return rt::fail(no_kernel, \"kwb::{}: the CPU kernel {} was compiled for x86-64-v{} (device "
                         "class {}), which this CPU is not (level \" + std::to_string(rt::cpu_level()) + \"), and the "
                         "package has no baseline CPU kernel (device class any) for {}/{}\");\n",
                         t.function, t.cpu->path, t.cpu->level, t.cpu->device_class, t.spec->op, t.variant->name);
    else
      out += fmt::format("  return rt::fail(no_kernel, \"kwb::{}: the CPU kernel {} was compiled for x86-64-v{} (device "
                         "class {}), which this CPU is not (level \" + std::to_string(rt::cpu_level()) + \"), and the "
                         "package has no baseline CPU kernel (device class any) for {}/{}\");\n",
                         t.function, t.cpu->path, t.cpu->level, t.cpu->device_class, t.spec->op, t.variant->name);
  } else if (t.cpu && !cpu_aligned.empty()) {
    out += fmt::format("  if ({}) {{\n    {}({});\n    return rt::succeed();\n  }}\n  {}", cpu_aligned, t.cpu->symbol,
                       argument_names(t), misaligned_failure(t, t.cpu->path, t.cpu->alignment));
  } else if (t.cpu) {
    out += fmt::format("  {}({});\n  return rt::succeed();\n", t.cpu->symbol, argument_names(t));
  } else
    out += fmt::format("  return rt::fail(no_kernel, \"kwb::{}: the tensors are in host memory and this package has no CPU kernel for {}/{}{}\");\n",
                       t.function, t.spec->op, t.variant->name,
                       t.cpu_regions.empty() ? " (pass device pointers to a build with KWB_WITH_CUDA)"
                                             : " for these params (they lie in none of its regions)");
  out += "}\n\n}  // namespace kwb\n";
  return out;
}

}  // namespace kwb::package
