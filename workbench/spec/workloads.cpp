// The "workloads" section: test and bench sizes, each giving every declared param; every
// tensor shape and roofline expression must evaluate for every workload.
#include <fmt/format.h>

#include "core/backend.hpp"
#include "spec/expr.hpp"
#include "spec/generators.hpp"
#include "spec/loader.hpp"
#include "spec/loader_parts.hpp"

namespace kwb::spec::detail {

namespace {

bool read_params(Reader& r, const Json& j, const std::string& path, const core::Spec& spec, core::Workload& w) {
  if (!r.any_object(j, path)) return false;
  const std::string declared = spec.params.empty() ? "none" : join(spec.params);
  for (const auto& [key, value] : j.items()) {
    const std::string p = member_path(path, key);
    if (find_index(spec.params, key) < 0)
      return r.fail(p, fmt::format("unknown param '{}' (declared: {})", key, declared));
    int64_t x = 0;
    if (!r.integer(value, p, x)) return false;
    if (x < 1) return r.fail(p, fmt::format("must be >= 1, got {}", x));
    w.params[key] = x;
  }
  for (const auto& name : spec.params)
    if (!w.params.contains(name))
      return r.fail(member_path(path, name), fmt::format("missing: every declared param needs a value ({})", declared));
  return true;
}

// A value for every declared scalar: given here, or the scalar's declared value.
bool read_scalars(Reader& r, const Json* j, const std::string& path, const core::Spec& spec, core::Workload& w) {
  const std::string declared = spec.scalars.empty() ? "none" : join(spec.scalar_names());
  if (j) {
    if (!r.any_object(*j, path)) return false;
    for (const auto& [key, value] : j->items()) {
      const std::string p = member_path(path, key);
      bool known = false;
      for (const auto& s : spec.scalars) known = known || s.name == key;
      if (!known) return r.fail(p, fmt::format("unknown scalar '{}' (declared: {})", key, declared));
      double x = 0;
      if (!r.number(value, p, x)) return false;
      w.scalars[key] = x;
    }
  }
  for (const auto& s : spec.scalars) {
    if (w.scalars.contains(s.name)) continue;
    if (!s.value)
      return r.fail(member_path(path, s.name),
                    fmt::format("missing: scalar '{}' has no \"value\" in \"scalars\", so every workload gives one "
                                "(\"scalars\": {{\"{}\": ...}})",
                                s.name, s.name));
    w.scalars[s.name] = *s.value;
  }
  return true;
}

bool read_backends(Reader& r, const Json& j, const std::string& path, core::Workload& w) {
  if (!r.array(j, path, /*non_empty=*/false)) return false;
  if (j.empty()) return r.fail(path, "must not be empty (leave \"backends\" out to run on every backend)");
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    std::string b;
    if (!r.string(j[i], p, b)) return false;
    if (!core::parse_backend(b))
      return r.fail(p, fmt::format("unknown backend {} (known: {})", j[i].dump(), core::backend_list()));
    if (find_index(w.backends, b) >= 0) return r.fail(p, fmt::format("duplicate backend \"{}\"", b));
    w.backends.push_back(b);
  }
  return true;
}

}  // namespace

util::Result<void> check_set_shapes(const core::Spec& spec, const std::map<std::string, int64_t>& params,
                                    std::string_view workload) {
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const core::TensorSpec& t = spec.tensors[i];
    if (!t.set) continue;
    auto idx = tensor_shape(spec, t, params);
    auto of = tensor_shape(spec, *spec.find_tensor(t.set->of), params);
    if (!idx || !of) continue;  // reported as a tensor's error
    bool same_rows = idx->size() == of->size();
    for (size_t d = 0; same_rows && d + 1 < idx->size(); ++d) same_rows = (*idx)[d] == (*of)[d];
    if (same_rows && idx->back() <= of->back()) continue;
    std::string a, b;
    for (auto d : *idx) a += (a.empty() ? "" : ", ") + std::to_string(d);
    for (auto d : *of) b += (b.empty() ? "" : ", ") + std::to_string(d);
    return util::fail(fmt::format("tensors[{}].set.of", i),
                      fmt::format("on {}: '{}' is [{}] and '{}' [{}]: a row of indices (the last dimension) selects "
                                  "distinct elements of the same row of '{}', so the leading dimensions must be equal "
                                  "and a row of indices no longer than a row of '{}'",
                                  workload, t.name, a, t.set->of, b, t.set->of, t.set->of));
  }
  return {};
}

namespace {

// Every tensor has positive dims, every roofline evaluates to a value >= 0, every generator's
// bounds evaluate to a range it can draw from, and set rules fit the shapes.
bool check_evaluates(Reader& r, const std::string& path, const core::Spec& spec, const core::Workload& w) {
  for (const auto& t : spec.tensors) {
    auto shape = tensor_shape(spec, t, w.params);
    if (!shape) return r.fail(path, fmt::format("tensor '{}': {}", t.name, shape.error().message));
  }
  const std::string name = fmt::format("{} '{}'", path, w.name);
  for (size_t d = 0; d < spec.distributions.size(); ++d)
    for (const auto& [tensor, g] : spec.distributions[d].tensors)
      if (auto resolved = resolve_generator(spec, d, tensor, w.params, name); !resolved)
        return r.fail(resolved.error().where, resolved.error().message);
  if (auto s = check_set_shapes(spec, w.params, name); !s) return r.fail(s.error().where, s.error().message);
  Env env(w.params.begin(), w.params.end());
  for (const auto& var : spec.variants) {
    for (const auto& [field, text] : {std::pair{"bytes", &var.roofline.bytes}, {"flops", &var.roofline.flops}}) {
      auto v = evaluate(*text, env);
      if (!v) return r.fail(path, fmt::format("variant '{}' roofline.{}: {}", var.name, field, v.error().message));
      if (*v < 0)
        return r.fail(path, fmt::format("variant '{}' roofline.{} \"{}\" is {}; it must be >= 0", var.name, field,
                                        *text, *v));
    }
  }
  return true;
}

bool read_workload(Reader& r, const Json& j, const std::string& path, const core::Spec& spec, core::Workload& w) {
  if (!r.object(j, path, {"name", "params", "scalars", "backends", "label"})) return false;
  const Json* v = r.required(j, path, "name");
  if (!v || !r.label_name(*v, member_path(path, "name"), w.name)) return false;
  v = r.required(j, path, "params");
  if (!v || !read_params(r, *v, member_path(path, "params"), spec, w)) return false;
  if (!read_scalars(r, Reader::optional(j, "scalars"), member_path(path, "scalars"), spec, w)) return false;
  if (const Json* b = Reader::optional(j, "backends"); b && !read_backends(r, *b, member_path(path, "backends"), w))
    return false;
  if (const Json* l = Reader::optional(j, "label"); l && !r.non_empty_string(*l, member_path(path, "label"), w.label))
    return false;
  return check_evaluates(r, path, spec, w);
}

bool read_list(Reader& r, const Json& j, const std::string& path, const core::Spec& spec,
               std::vector<core::Workload>& out) {
  if (!r.array(j, path, /*non_empty=*/true)) return false;
  std::vector<std::string> names;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    core::Workload w;
    if (!read_workload(r, j[i], p, spec, w)) return false;
    if (long k = find_index(names, w.name); k >= 0)
      return r.fail(member_path(p, "name"),
                    fmt::format("duplicate workload name '{}' (also {})", w.name, index_path(path, size_t(k))));
    names.push_back(w.name);
    out.push_back(std::move(w));
  }
  return true;
}

}  // namespace

bool read_workloads(Reader& r, const Json& j, const std::string& path, core::Spec& spec) {
  if (!r.object(j, path, {"test", "bench"})) return false;
  const Json* v = r.required(j, path, "test");
  if (!v || !read_list(r, *v, member_path(path, "test"), spec, spec.test_workloads)) return false;
  v = r.required(j, path, "bench");
  return v && read_list(r, *v, member_path(path, "bench"), spec, spec.bench_workloads);
}

}  // namespace kwb::spec::detail
