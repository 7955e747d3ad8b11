// resolve_package: dispatch.json + the library tree + the catalog -> a checked Package model.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/backend.hpp"
#include "library/device_class.hpp"
#include "library/dispatch.hpp"
#include "package/cxx.hpp"
#include "package/model.hpp"
#include "spec/launch_plan.hpp"
#include "util/fs.hpp"

namespace kwb::package {

namespace fs = std::filesystem;

namespace {

std::string key_of(const library::DispatchEntry& e) {
  return "dispatch.json: " + e.op + "/" + e.variant + "/" + e.backend + "/" + e.device_class;
}

struct KernelMeta {
  std::vector<std::string> flags;
  size_t alignment = 0;
};

// "alignment" of a kernel's metadata: the bytes it needs every tensor aligned to, a power of two.
util::Result<size_t> kernel_alignment(const nlohmann::json& j, const fs::path& meta) {
  if (!j.contains("alignment")) return size_t(0);
  const auto& a = j["alignment"];
  if (!a.is_number_integer() || a.get<int64_t>() < 1 || a.get<int64_t>() > 4096 || (a.get<int64_t>() & (a.get<int64_t>() - 1)))
    return util::fail(meta.string() + ": alignment",
                      "expected a power of two from 1 to 4096 (bytes the kernel needs every tensor aligned to), got " + a.dump());
  return size_t(a.get<int64_t>());
}

// A kernel's metadata (its <name>.json): the flags it was promoted with, less the target choice,
// which is the package's (KWB_NATIVE, the kernel's level); the alignment it needs.
util::Result<KernelMeta> kernel_metadata(const ExportRequest& req, const library::DispatchEntry& e) {
  const fs::path meta = req.library_dir / fs::path(e.kernel).replace_extension(".json");
  std::error_code ec;
  KernelMeta out;
  std::vector<std::string>& flags = out.flags;
  if (!fs::is_regular_file(meta, ec)) return out;
  auto text = util::read_file(meta);
  if (!text) return util::fail(meta.string(), text.error().what());
  auto j = nlohmann::json::parse(*text, nullptr, false, true);
  if (j.is_discarded() || !j.is_object()) return util::fail(meta.string(), "not a JSON object");
  auto alignment = kernel_alignment(j, meta);
  if (!alignment) return std::unexpected(alignment.error());
  out.alignment = *alignment;
  if (!j.contains("flags")) return out;
  if (!j["flags"].is_array()) return util::fail(meta.string() + ": flags", "expected an array of strings");
  for (const auto& f : j["flags"]) {
    if (!f.is_string()) return util::fail(meta.string() + ": flags", "expected an array of strings");
    const std::string s = f.get<std::string>();
    if (s.starts_with("-march=") || s.starts_with("-mtune=") || s.starts_with("-mcpu=")) continue;
    if (s.find(';') != std::string::npos || s.find("]=]") != std::string::npos)
      return util::fail(meta.string() + ": flags", "'" + s + "' cannot be passed through CMake (';' or ']=]')");
    flags.push_back(s);
  }
  return out;
}

util::Result<std::string> read_kernel(const ExportRequest& req, const library::DispatchEntry& e, std::string_view ext) {
  const std::string where = key_of(e) + ": kernel '" + e.kernel + "'";
  if (fs::path(e.kernel).extension() != ext)
    return util::fail(where, fmt::format("a {} kernel is a {} file", e.backend, ext));
  std::error_code ec;
  const fs::path path = req.library_dir / e.kernel;
  if (!fs::is_regular_file(path, ec))
    return util::fail(where, "no such file in the library (" + req.library_dir.string() + ")");
  auto text = util::read_file(path);
  if (!text) return util::fail(where, text.error().what());
  return *text;
}

// The configs to compile (distinct tune maps of the measured workloads, or the first value of
// every tunable) and which workload picks which.
util::Result<void> resolve_configs(CudaKernel& k, const library::DispatchEntry& e, const core::Spec& spec,
                                   const std::string& function) {
  auto add = [&](const std::map<std::string, int64_t>& tune) {
    for (size_t i = 0; i < k.configs.size(); ++i)
      if (k.configs[i].tune == tune) return i;
    const size_t n = k.configs.size();
    k.configs.push_back({tune, core::TuneConfig{tune}.label(), fmt::format("kwb_cuda_{}_cfg{}", function, n),
                         fmt::format("cuda/{}_cfg{}.cu", function, n)});
    return n;
  };
  if (e.configs.empty()) {
    add(spec::tune_configs(k.plan).front().values);  // the space's first config (constraints hold)
    return {};
  }
  for (size_t i = 0; i < e.configs.size(); ++i) {
    const auto& c = e.configs[i];
    const std::string where = fmt::format("{}: configs[{}]", key_of(e), i);
    for (const auto& [name, value] : c.tune) {
      auto t = std::find_if(k.plan.tunables.begin(), k.plan.tunables.end(), [&](auto& x) { return x.name == name; });
      if (t == k.plan.tunables.end())
        return util::fail(where + ".tune." + name, "not a tunable of " + e.kernel);
      if (std::find(t->values.begin(), t->values.end(), value) == t->values.end())
        return util::fail(where + ".tune." + name,
                          fmt::format("{} is not one of the values of its kwb:tune line ({})", value, fmt::join(t->values, ", ")));
    }
    for (const auto& t : k.plan.tunables)
      if (!c.tune.contains(t.name)) return util::fail(where + ".tune", "missing '" + t.name + "' (tuned by " + e.kernel + ")");
    std::map<std::string, int64_t> params = c.params;
    if (params.empty()) {
      auto w = std::find_if(spec.bench_workloads.begin(), spec.bench_workloads.end(), [&](auto& x) { return x.name == c.workload; });
      if (w == spec.bench_workloads.end())
        return util::fail(where + ".params", "empty, and the spec has no bench workload '" + c.workload + "'");
      params = w->params;
    }
    double elements = 1;
    for (const auto& [name, value] : params) {
      if (value < 1) return util::fail(where + ".params." + name, fmt::format("{} is not >= 1", value));
      elements *= double(value);
    }
    k.picks.push_back({c.workload, elements, add(c.tune)});
  }
  return {};
}

// `baseline`: the entry is the "any" kernel kept for CPUs below the level of the target's incumbent.
// `region`: the entry is a shape region's, the `region`-th the dispatch's lookup tries (-1: not).
util::Result<void> add_entry(Package& pkg, Target& t, const ExportRequest& req, const library::DispatchEntry& e,
                             bool baseline = false, int region = -1) {
  if (core::is_backend(e.backend, core::Backend::cpu)) {
    auto text = read_kernel(req, e, core::source_extension(core::Backend::cpu));
    if (!text) return std::unexpected(text.error());
    if (e.entry.empty()) return util::fail(key_of(e) + ": entry", "a cpu entry names its extern \"C\" symbol");
    if (text->find(e.entry) == std::string::npos)
      return util::fail(key_of(e) + ": entry", "'" + e.entry + "' does not appear in " + e.kernel);
    auto meta = kernel_metadata(req, e);
    if (!meta) return std::unexpected(meta.error());
    CpuKernel k{e.kernel, e.entry, e.device_class, library::x86_level_of(e.device_class), std::move(meta->flags), "", "",
                meta->alignment};
    if (e.device_class == library::k_legacy_x86_class) k.level = library::x86_level_of(pkg.cpu_device_class);
    const std::string stem = t.function + (baseline ? "_baseline" : "") + (region >= 0 ? "_r" + std::to_string(region) : "");
    k.unit = "cpu/" + stem + ".cpp";
    k.symbol = e.entry + "__" + stem;
    if (region >= 0)
      t.cpu_regions.push_back({e.region, std::move(k), size_t(region)});
    else
      (baseline ? t.cpu_baseline : t.cpu) = std::move(k);
    pkg.kernel_sources[e.kernel] = std::move(*text);
    return {};
  }
  auto text = read_kernel(req, e, core::source_extension(core::Backend::cuda));
  if (!text) return std::unexpected(text.error());
  auto plan = spec::parse_launch_plan(*text, e.kernel);
  if (!plan) return util::fail(key_of(e), plan.error().what());
  if (auto b = spec::bind_launch_plan(*plan, *t.spec, e.kernel, t.variant); !b) return util::fail(key_of(e), b.error().what());
  if (!plan->variant.empty() && plan->variant != e.variant)
    return util::fail(key_of(e), e.kernel + " declares kwb:variant " + plan->variant);
  auto meta = kernel_metadata(req, e);
  if (!meta) return std::unexpected(meta.error());
  CudaKernel k{e.kernel, e.device_class, std::move(*plan), {}, {}, meta->alignment};
  if (auto r = resolve_configs(k, e, *t.spec, t.function); !r) return std::unexpected(r.error());
  t.cuda = std::move(k);
  pkg.kernel_sources[e.kernel] = std::move(*text);
  return {};
}

// Why a function of `spec`'s variant `v` cannot be exported yet (empty: it can). Every field of the
// spec format is exported (scalars, optional tensors, fp8/i8, bounds as expressions, offsets,
// distinct, permutation, the set rule: docs/export.md); what is left is a generator kind the
// example does not know, which a spec of a newer workbench could have.
std::string unexported_feature(const core::Spec& spec, const core::Variant& v) {
  static const std::set<std::string> k_kinds = {"uniform", "normal", "int_uniform", "constant",
                                                "distinct", "permutation", "offsets"};
  for (const auto& [name, g] : spec.distributions.front().tensors)
    if (v.has(name) && !k_kinds.contains(g.kind)) return fmt::format("a {} generator", g.kind);
  return {};
}

}  // namespace

util::Result<Package> resolve_package(const ExportRequest& req) {
  if (!req.catalog) return util::fail("export", "no spec catalog given");
  for (const auto& b : req.backends)
    if (!core::parse_backend(b)) return util::fail("backends", "'" + b + "' is not one of " + core::backend_list());
  const fs::path dispatch_path = req.library_dir / "dispatch.json";
  auto text = util::read_file(dispatch_path);
  if (!text) return util::fail(dispatch_path.string(), "cannot read the library's dispatch.json: " + text.error().message);
  auto dispatch = library::parse_dispatch(*text, "dispatch.json");
  if (!dispatch) return std::unexpected(dispatch.error());

  Package pkg;
  pkg.dispatch_json = *text;
  const std::string cpu_class = req.cpu_device_class.empty() ? library::host_cpu_class() : req.cpu_device_class;
  for (const auto& [what, cls] : {std::pair{"cpu_device_class", cpu_class}, std::pair{"cuda_device_class", req.cuda_device_class}})
    if (auto why = library::why_not_a_device_class(cls); !why.empty()) return util::fail(what, why);
  pkg.cpu_device_class = cpu_class;
  std::map<std::string, Target> targets;  // by function
  std::set<std::string> wanted(req.ops.begin(), req.ops.end()), seen_ops;
  for (const auto& e : dispatch->entries) {
    if (!wanted.empty() && !wanted.contains(e.op)) continue;
    if (std::find(req.backends.begin(), req.backends.end(), e.backend) == req.backends.end()) continue;
    const std::string key = e.op + "/" + e.variant + "/" + e.backend + "/" + e.device_class;
    const auto form = core::parse_backend(e.backend);  // dispatch.json's entries are checked when read
    if (form == core::Backend::cuda_launcher) {
      pkg.skipped.push_back(key + ": the cuda-launcher form is not exported yet");
      continue;
    }
    const bool cpu = form == core::Backend::cpu;
    const std::string& cls = cpu ? cpu_class : req.cuda_device_class;
    const library::DispatchEntry* incumbent = dispatch->incumbent(e.op, e.variant, e.backend, cls);
    // A shape region's kernel (docs/library.md "Shape regions"): its place in the lookup, or -1.
    const auto serving = dispatch->serving(e.op, e.variant, e.backend, cls);
    const auto at = std::find(serving.begin(), serving.end(), &e);
    const int region = e.region.whole() || at == serving.end() ? -1 : int(at - serving.begin());
    if (region >= 0 && !cpu) {
      pkg.skipped.push_back(key + " (" + e.region.text() + "): shape regions of " + e.backend + " kernels are not exported yet");
      continue;
    }
    // The "any" CPU kernel stays as the fallback of an incumbent that needs an x86-64 level.
    const bool baseline = incumbent != &e && cpu && e.device_class == "any" && e.region.whole() && incumbent &&
                          (library::x86_level_of(incumbent->device_class) > 1 ||
                           (incumbent->device_class == library::k_legacy_x86_class && library::x86_level_of(cls) > 1));
    if (incumbent != &e && !baseline && region < 0) {
      pkg.skipped.push_back(key + ": another device class (exporting " + cls + ")");
      continue;
    }
    const core::Spec* spec = req.catalog->find(e.op);
    if (!spec) return util::fail(key_of(e) + ": op", "'" + e.op + "' is not in the spec catalog");
    const core::Variant* variant = spec->find_variant(e.variant);
    if (!variant) return util::fail(key_of(e) + ": variant", "'" + e.variant + "' is not a variant of " + spec->file.string());
    if (auto why = unexported_feature(*spec, *variant); !why.empty()) {
      pkg.skipped.push_back(key + ": the spec uses " + why + ", which `kwb export` does not export yet");
      continue;
    }
    const std::string fn = function_name(e.op, e.variant);
    Target& t = targets[fn];
    if (t.spec && t.variant != variant)
      return util::fail(key_of(e), "exported function kwb::" + fn + " would also serve " + t.spec->op + "/" + t.variant->name);
    t.spec = spec, t.variant = variant, t.function = fn;
    seen_ops.insert(e.op);
    if (auto r = add_entry(pkg, t, req, e, baseline, region); !r) return std::unexpected(r.error());
  }
  for (const auto& op : wanted)
    if (!seen_ops.contains(op)) return util::fail("ops", "'" + op + "' has no exported entry in dispatch.json");
  if (targets.empty()) return util::fail("dispatch.json", "nothing to export for backends " + fmt::format("{}", fmt::join(req.backends, ", ")));

  std::map<std::string, std::string> symbols;  // CPU entry symbol -> function
  for (auto& [fn, t] : targets) {
    std::sort(t.cpu_regions.begin(), t.cpu_regions.end(), [](const RegionalCpu& a, const RegionalCpu& b) { return a.order < b.order; });
    const CpuKernel* first = t.cpu ? &*t.cpu : t.cpu_regions.empty() ? nullptr : &t.cpu_regions.front().kernel;
    if (first) {
      auto [it, fresh] = symbols.emplace(first->entry, fn);
      if (!fresh) return util::fail("dispatch.json", "kwb::" + fn + " and kwb::" + it->second + " both use the symbol " + first->entry);
    }
    if (!pkg.references.contains(t.spec->op)) {
      const fs::path ref = req.specs_dir / t.spec->op / "reference.cpp";
      auto r = util::read_file(ref);
      if (!r) return util::fail(ref.string(), "cannot read the trusted reference of " + t.spec->op + ": " + r.error().message);
      pkg.references[t.spec->op] = std::move(*r);
    }
    pkg.targets.push_back(std::move(t));
  }
  return pkg;
}

}  // namespace kwb::package
