// The optional "gpu_reference" section (docs/specs.md "GPU references"): a .cu file next to
// spec.json and, per variant, the launch plan that runs its kernels (the `cuda` form's plan
// lines, docs/cuda.md), bound to the spec and resolved for every workload here, so a bad plan
// is the spec's load error and never an evaluation's.
#include <fmt/format.h>

#include "spec/launch_plan.hpp"
#include "spec/loader_parts.hpp"

namespace kwb::spec::detail {

namespace {

// "L:3" -> 2 (the index of the plan line the error is about), or -1.
long line_index(const std::string& where) {
  if (!where.starts_with("L:")) return -1;
  try {
    return std::stol(where.substr(2)) - 1;
  } catch (...) {
    return -1;
  }
}

bool read_plan(Reader& r, const Json& j, const std::string& path, const core::Spec& spec, const core::Variant& variant,
               core::LaunchPlan& plan, std::vector<std::string>& written) {
  if (j.is_array() && j.empty()) return r.fail(path, "expected at least one launch line");
  if (!j.is_string() && !j.is_array())
    return r.fail(path, fmt::format("expected a launch line or an array of them (docs/cuda.md), got {}", describe(j)));
  const nlohmann::json lines = nlohmann::json::parse(j.dump());
  auto text = plan_lines_from_json(lines, nullptr);
  if (!text) return r.fail(path + text.error().where.substr(std::string_view("launch").size()), text.error().message);
  auto parsed = parse_launch_plan(*text, "L");
  if (!parsed) {
    long i = line_index(parsed.error().where);
    return r.fail(i >= 0 && j.is_array() ? index_path(path, size_t(i)) : path, parsed.error().message);
  }
  if (!parsed->tunables.empty())
    return r.fail(path, "kwb:tune: a reference has one plan (no tunables): write the block size as a number");
  if (!parsed->variant.empty()) return r.fail(path, "kwb:variant: the variant is the key of this plan");
  if (auto b = bind_launch_plan(*parsed, spec, "L", &variant); !b) {
    long i = line_index(b.error().where);
    return r.fail(i >= 0 && j.is_array() ? index_path(path, size_t(i)) : path, b.error().message);
  }
  // Every launch must be valid for every workload it may judge or be cross-checked on.
  for (const auto* list : {&spec.test_workloads, &spec.bench_workloads})
    for (const auto& w : *list) {
      auto dims = resolve_launches(*parsed, {}, w.params, "L", w.name);
      auto ws = dims ? resolve_workspace(*parsed, {}, w.params, "L", w.name) : util::Result<int64_t>(0);
      const util::Error* e = !dims ? &dims.error() : !ws ? &ws.error() : nullptr;
      if (e) return r.fail(path, e->message);
    }
  plan = std::move(*parsed);
  for (const auto& l : lines.is_array() ? lines : nlohmann::json::array({lines})) written.push_back(l.get<std::string>());
  return true;
}

bool read_workload_names(Reader& r, const Json& j, const std::string& path, const core::Spec& spec,
                         std::vector<std::string>& out) {
  if (!r.array(j, path, /*non_empty=*/true)) return false;
  std::vector<std::string> bench;
  for (const auto& w : spec.bench_workloads) bench.push_back(w.name);
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    std::string name;
    if (!r.string(j[i], p, name)) return false;
    if (find_index(bench, name) < 0)
      return r.fail(p, fmt::format("unknown bench workload '{}' (bench: {})", name, join(bench)));
    if (long k = find_index(out, name); k >= 0)
      return r.fail(p, fmt::format("duplicate workload '{}' (also {})", name, index_path(path, size_t(k))));
    out.push_back(name);
  }
  return true;
}

}  // namespace

bool read_gpu_reference(Reader& r, const Json& j, const std::string& path, core::Spec& spec) {
  if (!r.object(j, path, {"file", "launch", "workloads", "note"})) return false;
  for (const auto& t : spec.tensors)
    if (t.role == core::Role::inout)
      return r.fail(path, fmt::format("tensor '{}' is inout: a GPU reference writes f64 outputs apart from its "
                                      "inputs, so it serves specs whose outputs have role \"out\" only",
                                      t.name));
  core::GpuReferenceSpec g;
  const Json* v = r.required(j, path, "file");
  if (!v || !read_source_file(r, *v, member_path(path, "file"), spec, "a GPU reference", g.file, g.source))
    return false;
  if (const Json* n = Reader::optional(j, "note"); n && !r.string(*n, member_path(path, "note"), g.note)) return false;
  v = r.required(j, path, "launch");
  const std::string lp = member_path(path, "launch");
  if (!v || !r.any_object(*v, lp)) return false;
  if (v->empty()) return r.fail(lp, fmt::format("no variant: give a plan for some of {}", join(variant_names(spec))));
  for (const auto& [name, lines] : v->items()) {
    const std::string p = member_path(lp, name);
    if (!spec.find_variant(name))
      return r.fail(p, fmt::format("unknown variant '{}' (variants: {})", name, join(variant_names(spec))));
    if (!read_plan(r, lines, p, spec, *spec.find_variant(name), g.plans[name], g.launch[name])) return false;
  }
  if (const Json* w = Reader::optional(j, "workloads");
      w && !read_workload_names(r, *w, member_path(path, "workloads"), spec, g.workloads))
    return false;
  spec.gpu_reference = std::move(g);
  return true;
}

}  // namespace kwb::spec::detail
