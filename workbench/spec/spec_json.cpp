#include "spec/spec_json.hpp"

#include "core/backend.hpp"
#include "spec/prototype.hpp"
#include "spec/templates.hpp"

namespace kwb::spec {

namespace {

// An integer field as written: its expression where it has one, else the number.
nlohmann::json bound_json(const core::Generator& g, const char* key, double value) {
  if (auto it = g.bounds.find(key); it != g.bounds.end()) return it->second;
  return int64_t(value);
}

nlohmann::json generator_json(const core::Generator& g) {
  nlohmann::json j = {{"kind", g.kind}};
  if (g.kind == "uniform") j.update({{"lo", g.lo}, {"hi", g.hi}});
  if (g.kind == "int_uniform" || g.kind == "distinct") j.update({{"lo", bound_json(g, "lo", g.lo)}, {"hi", bound_json(g, "hi", g.hi)}});
  if (g.kind == "normal") j.update({{"mean", g.mean}, {"stddev", g.stddev}});
  if (g.kind == "constant") j["value"] = g.value;
  if (g.kind == "offsets")
    j.update({{"end", bound_json(g, "end", g.end)}, {"min_length", bound_json(g, "min_length", g.min_length)},
              {"max_length", bound_json(g, "max_length", g.max_length)}});
  if ((g.kind == "distinct" || g.kind == "permutation") && g.per_row) j["per_row"] = true;
  if (!g.specials.empty()) j.update({{"specials", g.specials}, {"specials_fraction", g.specials_fraction}});
  return j;
}

nlohmann::json workloads_json(const std::vector<core::Workload>& ws) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& w : ws) {
    nlohmann::json j = {{"name", w.name}, {"params", w.params}};
    if (!w.scalars.empty()) j["scalars"] = w.scalars;
    if (!w.backends.empty()) j["backends"] = w.backends;
    if (!w.label.empty()) j["label"] = w.label;
    a.push_back(j);
  }
  return a;
}

nlohmann::json params_json(const std::vector<EntryParam>& params) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : params) a.push_back({{"name", p.name}, {"type", p.type_text()}});
  return a;
}

// What a candidate of one variant implements on one backend: the exact prototype (the text the
// analyzer's entry-signature findings print), its parameters, and a template to start from.
nlohmann::json backend_contract(const core::Spec& s, const core::Variant& v, const std::string& backend) {
  auto params = entry_params(s, v, backend);
  const bool kernel = core::is_backend(backend, core::Backend::cuda);
  nlohmann::json j = {{"prototype", "extern \"C\" " + prototype_text(v.entry, params, kernel)},
                      {"params", params_json(params)}};
  if (kernel) {
    std::string args;
    for (const auto& p : params) args += (args.empty() ? "" : ", ") + p.name;
    j["launch_args"] = "(" + args + ")";
    j["note"] = "the parameters of a kernel whose kwb:launch line passes args=" + j["launch_args"].get<std::string>() +
                "; the kernel may have any name, and a launch may pass any of these names (each with its type "
                "here) or `workspace` (void*), in the kernel's parameter order (docs/cuda.md)";
  } else {
    j["entry"] = v.entry;
  }
  auto t = candidate_template(s, v, backend);
  j["template"] = {{"source", t.source}, {"complete", t.complete},
                   {"file", t.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.file)}};
  return j;
}

}  // namespace

nlohmann::json contract_json(const core::Spec& s) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& v : s.variants)
    for (core::Backend form : core::k_backends) {
      const std::string b(core::backend_name(form));
      out[v.name][b] = backend_contract(s, v, b);
    }
  return out;
}

nlohmann::json to_json(const core::Spec& s) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const auto& t : s.tensors) {
    nlohmann::json jt = {{"name", t.name}, {"role", core::role_name(t.role)}, {"shape", t.shape}};
    if (t.finite) jt["finite"] = *t.finite;
    if (t.optional) jt["optional"] = true;
    if (t.set) {
      jt["set"] = {{"of", t.set->of}};
      if (!t.set->values.empty()) jt["set"]["values"] = t.set->values;
    }
    tensors.push_back(std::move(jt));
  }
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& v : s.variants) {
    nlohmann::json dtypes = nlohmann::json::object(), tol = nlohmann::json::object();
    for (const auto& [k, d] : v.dtypes) dtypes[k] = core::dtype_name(d);
    for (const auto& [k, t] : v.tolerance)
      tol[k] = t.exact ? nlohmann::json{{"exact", true}} : nlohmann::json{{"atol", t.atol}, {"rtol", t.rtol}};
    variants.push_back({{"name", v.name}, {"entry", v.entry}, {"dtypes", dtypes}, {"tolerance", tol},
                        {"roofline", {{"bytes", v.roofline.bytes}, {"flops", v.roofline.flops}}}});
  }
  nlohmann::json dists = nlohmann::json::array();
  for (const auto& d : s.distributions) {
    nlohmann::json gens = nlohmann::json::object();
    for (const auto& [k, g] : d.tensors) gens[k] = generator_json(g);
    dists.push_back({{"name", d.name}, {"note", d.note}, {"tensors", gens}});
  }
  nlohmann::json out = {
      {"op", s.op}, {"version", s.version}, {"summary", s.summary}, {"params", s.params},
      {"tensors", tensors}, {"variants", variants}, {"distributions", dists},
      {"workloads", {{"test", workloads_json(s.test_workloads)}, {"bench", workloads_json(s.bench_workloads)}}},
      {"deterministic", s.deterministic}, {"contract", contract_json(s)}};
  if (s.alignment) out["alignment"] = s.alignment;
  if (!s.scalars.empty()) {
    nlohmann::json scalars = nlohmann::json::array();
    for (const auto& sc : s.scalars) {
      nlohmann::json js = {{"name", sc.name}};
      if (sc.value) js["value"] = *sc.value;
      scalars.push_back(std::move(js));
    }
    out["scalars"] = std::move(scalars);
  }
  // Baselines as declared; their sources stay on the server (specs/<op>/<file> in the tree).
  if (!s.baselines.empty()) {
    nlohmann::json bs = nlohmann::json::array();
    for (const auto& b : s.baselines)
      bs.push_back({{"name", b.name}, {"file", b.file}, {"backend", b.backend}, {"variants", b.variants},
                    {"flags", b.flags}, {"note", b.note}});
    out["baselines"] = bs;
  }
  // As declared: ranges in the file's "lo..hi" form, so the output loads as a spec again.
  if (s.shapes) {
    nlohmann::json ranges = nlohmann::json::object();
    for (const auto& r : s.shapes->ranges) ranges[r.param] = std::to_string(r.lo) + ".." + std::to_string(r.hi);
    out["shapes"] = {{"ranges", ranges}, {"constraints", s.shapes->constraints}, {"count", s.shapes->count},
                     {"max_elements", s.shapes->max_elements}};
    if (!s.shapes->scalars.empty()) {
      nlohmann::json scalars = nlohmann::json::object();
      for (const auto& r : s.shapes->scalars) scalars[r.scalar] = nlohmann::json::array({r.lo, r.hi});
      out["shapes"]["scalars"] = std::move(scalars);
    }
  }
  // As declared; the source stays on the server (specs/<op>/<file>).
  if (s.gpu_reference) {
    nlohmann::json g = {{"file", s.gpu_reference->file}, {"launch", s.gpu_reference->launch}};
    if (!s.gpu_reference->workloads.empty()) g["workloads"] = s.gpu_reference->workloads;
    if (!s.gpu_reference->note.empty()) g["note"] = s.gpu_reference->note;
    out["gpu_reference"] = g;
  }
  return out;
}

}  // namespace kwb::spec
