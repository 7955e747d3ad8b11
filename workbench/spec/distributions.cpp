// The "distributions" section: one generator per in/inout tensor, checked against every
// variant's dtypes (integer tensors take only integer generators, without specials). Bounds
// written as expressions are checked here for their names; workloads.cpp and shapes.cpp evaluate
// them for every workload (spec/generators.hpp).
#include <cmath>
#include <fmt/format.h>

#include "spec/expr.hpp"
#include "spec/generators.hpp"
#include "spec/loader_parts.hpp"

namespace kwb::spec::detail {

namespace {

constexpr double k_max_exact_int = 9007199254740992.0;  // 2^53: larger integers lose bits as doubles
constexpr std::string_view k_specials[] = {"nan", "inf", "-inf", "+0", "-0", "denormal", "max", "lowest"};

std::string known_specials() {
  std::vector<std::string> names(std::begin(k_specials), std::end(k_specials));
  return join(names);
}

bool number_field(Reader& r, const Json& j, const std::string& path, const char* key, double& out) {
  const Json* v = r.required(j, path, key);
  return v && r.number(*v, member_path(path, key), out);
}

bool int_value(Reader& r, const Json& v, const std::string& p, double& out) {
  int64_t x = 0;
  if (!r.integer(v, p, x)) return false;
  if (std::fabs(double(x)) > k_max_exact_int) return r.fail(p, fmt::format("{} is outside +-2^53", x));
  out = double(x);
  return true;
}

// An integer, or an expression over the params (`"vocab - 1"`) kept in g.bounds[key] and
// evaluated per workload. `fallback`: the value when the field is left out (nullptr: required).
bool bound_field(Reader& r, const Json& j, const std::string& path, const char* key, const core::Spec& spec,
                 core::Generator& g, double& out, const char* fallback = nullptr) {
  const std::string p = member_path(path, key);
  const Json* v = Reader::optional(j, key);
  if (!v) {
    if (!fallback) return r.required(j, path, key) != nullptr;
    g.bounds[key] = fallback;
    return true;
  }
  if (!v->is_string()) return int_value(r, *v, p, out);
  const std::string text = v->get<std::string>();
  auto e = Expr::parse(text);
  if (!e) return r.fail(p, "bad expression " + e.error().message);
  for (const auto& name : e->names())
    if (find_index(spec.params, name) < 0)
      return r.fail(p, fmt::format("unknown name '{}' in \"{}\" ({})", name, text,
                                   spec.params.empty() ? "no params are declared" : "declared params: " + join(spec.params)));
  g.bounds[key] = text;
  return true;
}

bool per_row_field(Reader& r, const Json& j, const std::string& path, core::Generator& g) {
  const Json* v = Reader::optional(j, "per_row");
  return !v || r.boolean(*v, member_path(path, "per_row"), g.per_row);
}

bool read_specials(Reader& r, const Json& j, const std::string& path, core::Generator& g) {
  const Json* s = Reader::optional(j, "specials");
  const Json* f = Reader::optional(j, "specials_fraction");
  if (!s && !f) return true;
  if (!s) return r.fail(member_path(path, "specials"), "missing: required when \"specials_fraction\" is given");
  if (!f) return r.fail(member_path(path, "specials_fraction"), "missing: required when \"specials\" is given");
  const std::string sp = member_path(path, "specials");
  if (!r.array(*s, sp, /*non_empty=*/true)) return false;
  for (size_t i = 0; i < s->size(); ++i) {
    std::string name;
    if (!r.string((*s)[i], index_path(sp, i), name)) return false;
    bool known = false;
    for (auto k : k_specials) known = known || k == name;
    if (!known)
      return r.fail(index_path(sp, i), fmt::format("unknown special '{}' (known: {})", name, known_specials()));
    g.specials.push_back(name);
  }
  const std::string fp = member_path(path, "specials_fraction");
  if (!r.number(*f, fp, g.specials_fraction)) return false;
  if (!(g.specials_fraction > 0 && g.specials_fraction <= 1))
    return r.fail(fp, fmt::format("must be in (0, 1], got {}", f->dump()));
  return true;
}

bool read_generator(Reader& r, const Json& j, const std::string& path, const core::Spec& spec, core::Generator& g) {
  if (!r.any_object(j, path)) return false;
  const Json* k = r.required(j, path, "kind");
  const std::string kp = member_path(path, "kind");
  if (!k || !r.string(*k, kp, g.kind)) return false;
  if (g.kind == "uniform") {
    if (!r.object(j, path, {"kind", "lo", "hi", "specials", "specials_fraction"})) return false;
    if (!number_field(r, j, path, "lo", g.lo) || !number_field(r, j, path, "hi", g.hi)) return false;
    if (!(g.lo < g.hi)) return r.fail(member_path(path, "hi"), fmt::format("must be > lo ({}), got {}", g.lo, g.hi));
  } else if (g.kind == "normal") {
    if (!r.object(j, path, {"kind", "mean", "stddev", "specials", "specials_fraction"})) return false;
    if (!number_field(r, j, path, "mean", g.mean) || !number_field(r, j, path, "stddev", g.stddev)) return false;
    if (!(g.stddev > 0)) return r.fail(member_path(path, "stddev"), fmt::format("must be > 0, got {}", g.stddev));
  } else if (g.kind == "int_uniform" || g.kind == "distinct") {
    const bool distinct = g.kind == "distinct";
    if (!r.object(j, path, distinct ? std::initializer_list<std::string_view>{"kind", "lo", "hi", "per_row"}
                                    : std::initializer_list<std::string_view>{"kind", "lo", "hi", "specials",
                                                                              "specials_fraction"}))
      return false;
    if (!bound_field(r, j, path, "lo", spec, g, g.lo) || !bound_field(r, j, path, "hi", spec, g, g.hi)) return false;
    if (g.bounds.empty() && g.lo > g.hi)
      return r.fail(member_path(path, "hi"), fmt::format("must be >= lo ({}), got {}", g.lo, g.hi));
    if (distinct && !per_row_field(r, j, path, g)) return false;
  } else if (g.kind == "permutation") {
    if (!r.object(j, path, {"kind", "per_row"}) || !per_row_field(r, j, path, g)) return false;
  } else if (g.kind == "offsets") {
    if (!r.object(j, path, {"kind", "end", "min_length", "max_length"})) return false;
    if (!bound_field(r, j, path, "end", spec, g, g.end)) return false;
    if (!bound_field(r, j, path, "min_length", spec, g, g.min_length, "0")) return false;
    // Left out: no upper bound but `end` itself.
    const Json* end = Reader::optional(j, "end");
    const std::string end_text = g.bounds.contains("end") ? g.bounds["end"] : end->dump();
    if (!bound_field(r, j, path, "max_length", spec, g, g.max_length, end_text.c_str())) return false;
  } else if (g.kind == "constant") {
    if (!r.object(j, path, {"kind", "value", "specials", "specials_fraction"})) return false;
    if (!number_field(r, j, path, "value", g.value)) return false;
  } else {
    return r.fail(kp, fmt::format("unknown generator kind {} (known: uniform, normal, int_uniform, constant, offsets, "
                                  "distinct, permutation)",
                                  k->dump()));
  }
  return read_specials(r, j, path, g);
}

bool integer_kind(const core::Generator& g) {
  return g.kind == "int_uniform" || g.kind == "constant" || g.kind == "offsets" || g.kind == "distinct" ||
         g.kind == "permutation";
}

// A float-valued generator on an fp8 tensor: no values beyond the largest finite one (they would
// saturate), no infinities in e4m3 (which has none).
bool check_fp8(Reader& r, const std::string& path, const std::string& what, core::DType dt, const core::Generator& g) {
  const double max = dt == core::DType::f8e4m3 ? 448.0 : 57344.0;
  for (const auto& s : g.specials)
    if (dt == core::DType::f8e4m3 && (s == "inf" || s == "-inf"))
      return r.fail(member_path(path, "specials"), what + ": f8e4m3 has no infinity (its largest value is 448; use "
                                                          "\"max\"/\"lowest\", or \"nan\")");
  const bool beyond = (g.kind == "uniform" && (g.lo < -max || g.hi > max)) ||
                      (g.kind == "constant" && std::fabs(g.value) > max);
  if (beyond)
    return r.fail(path, fmt::format("{}: values beyond +-{} do not exist in {} (they would saturate)", what, max,
                                    core::dtype_name(dt)));
  return true;
}

// Integer tensors (in any variant) take integer generators whose values fit the dtype; offsets,
// distinct and permutation generators take integer tensors only (offsets: i32 or i64).
bool check_integer_dtypes(Reader& r, const std::string& path, const std::string& tensor, const core::Generator& g,
                          const core::Spec& spec) {
  const core::TensorSpec* t = spec.find_tensor(tensor);
  if (g.kind == "offsets" && t->shape.size() != 1)
    return r.fail(member_path(path, "kind"), fmt::format("offsets fill a 1-D tensor; '{}' has {} dimensions", tensor,
                                                         t->shape.size()));
  for (const auto& var : spec.variants) {
    if (!var.has(tensor)) continue;
    const core::DType dt = var.dtypes.at(tensor);
    const std::string what = fmt::format("tensor '{}' is {} in variant '{}'", tensor, core::dtype_name(dt), var.name);
    if (core::dtype_is_fp8(dt) && !check_fp8(r, path, what, dt, g)) return false;
    if (!core::dtype_is_integer(dt)) {
      if (g.kind == "int_uniform" || g.kind == "constant" || g.kind == "uniform" || g.kind == "normal") continue;
      return r.fail(member_path(path, "kind"), fmt::format("{}: \"{}\" generators fill integer tensors only", what,
                                                           g.kind));
    }
    if (!integer_kind(g))
      return r.fail(member_path(path, "kind"),
                    what + ": integer tensors take only \"int_uniform\", \"constant\", \"offsets\", \"distinct\" or "
                           "\"permutation\" generators");
    if (g.kind == "offsets" && dt != core::DType::i32 && dt != core::DType::i64)
      return r.fail(member_path(path, "kind"), what + ": offsets are i32 or i64");
    if (!g.specials.empty())
      return r.fail(member_path(path, "specials"), what + ": integer tensors take no specials");
    if (g.kind != "int_uniform" && g.kind != "constant") continue;  // checked per workload (spec/generators.hpp)
    auto [lo, hi] = integer_dtype_range(dt);
    if (g.kind == "constant") {
      if (g.value != std::trunc(g.value) || g.value < lo || g.value > hi)
        return r.fail(member_path(path, "value"), fmt::format("{}: {} is not a value of {}", what, g.value,
                                                              core::dtype_name(dt)));
    } else if ((!g.bounds.contains("lo") && g.lo < lo) || (!g.bounds.contains("hi") && g.hi > hi)) {
      return r.fail(path, fmt::format("{}: [{}, {}] does not fit in {} ([{}, {}])", what, g.lo, g.hi,
                                      core::dtype_name(dt), lo, hi));
    }
  }
  return true;
}

bool read_distribution(Reader& r, const Json& j, const std::string& path, const core::Spec& spec,
                       core::Distribution& d) {
  if (!r.object(j, path, {"name", "note", "tensors"})) return false;
  const Json* v = r.required(j, path, "name");
  if (!v || !r.label_name(*v, member_path(path, "name"), d.name)) return false;
  if (const Json* n = Reader::optional(j, "note"); n && !r.string(*n, member_path(path, "note"), d.note)) return false;
  v = r.required(j, path, "tensors");
  const std::string tp = member_path(path, "tensors");
  if (!v || !r.any_object(*v, tp)) return false;
  for (const auto& [key, value] : v->items()) {
    const std::string p = member_path(tp, key);
    const core::TensorSpec* t = spec.find_tensor(key);
    if (!t) {
      std::vector<std::string> names;
      for (const auto& x : spec.tensors) names.push_back(x.name);
      return r.fail(p, fmt::format("unknown tensor '{}' (tensors: {})", key, join(names)));
    }
    if (t->role == core::Role::out)
      return r.fail(p, fmt::format("tensor '{}' is an output (role \"out\"): only in/inout tensors get generators",
                                   key));
    core::Generator g;
    if (!read_generator(r, value, p, spec, g) || !check_integer_dtypes(r, p, key, g, spec)) return false;
    d.tensors[key] = std::move(g);
  }
  for (const auto& t : spec.tensors)
    if (t.role != core::Role::out && !d.tensors.contains(t.name))
      return r.fail(member_path(tp, t.name), "missing: every in/inout tensor needs a generator");
  return true;
}

}  // namespace

bool read_distributions(Reader& r, const Json& j, const std::string& path, core::Spec& spec) {
  if (!r.array(j, path, /*non_empty=*/true)) return false;
  std::vector<std::string> names;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    core::Distribution d;
    if (!read_distribution(r, j[i], p, spec, d)) return false;
    if (long k = find_index(names, d.name); k >= 0)
      return r.fail(member_path(p, "name"),
                    fmt::format("duplicate distribution name '{}' (also {})", d.name, index_path(path, size_t(k))));
    names.push_back(d.name);
    spec.distributions.push_back(std::move(d));
  }
  return true;
}

}  // namespace kwb::spec::detail
