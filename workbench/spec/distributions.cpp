// The "distributions" section: one generator per in/inout tensor, checked against every
// variant's dtypes (integer tensors take only int_uniform/constant, without specials).
#include <cmath>
#include <fmt/format.h>

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

bool int_field(Reader& r, const Json& j, const std::string& path, const char* key, double& out) {
  const Json* v = r.required(j, path, key);
  int64_t x = 0;
  const std::string p = member_path(path, key);
  if (!v || !r.integer(*v, p, x)) return false;
  if (std::fabs(double(x)) > k_max_exact_int) return r.fail(p, fmt::format("{} is outside +-2^53", x));
  out = double(x);
  return true;
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

bool read_generator(Reader& r, const Json& j, const std::string& path, core::Generator& g) {
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
  } else if (g.kind == "int_uniform") {
    if (!r.object(j, path, {"kind", "lo", "hi", "specials", "specials_fraction"})) return false;
    if (!int_field(r, j, path, "lo", g.lo) || !int_field(r, j, path, "hi", g.hi)) return false;
    if (g.lo > g.hi) return r.fail(member_path(path, "hi"), fmt::format("must be >= lo ({}), got {}", g.lo, g.hi));
  } else if (g.kind == "constant") {
    if (!r.object(j, path, {"kind", "value", "specials", "specials_fraction"})) return false;
    if (!number_field(r, j, path, "value", g.value)) return false;
  } else {
    return r.fail(kp, fmt::format("unknown generator kind {} (known: uniform, normal, int_uniform, constant)",
                                  k->dump()));
  }
  return read_specials(r, j, path, g);
}

// Range of the values an integer dtype holds (as doubles; i64 is capped by the 2^53 check above).
std::pair<double, double> int_range(core::DType t) {
  switch (t) {
    case core::DType::u8: return {0, 255};
    case core::DType::i32: return {-2147483648.0, 2147483647.0};
    case core::DType::u32: return {0, 4294967295.0};
    default: return {-9223372036854775808.0, 9223372036854775807.0};
  }
}

// Integer tensors (in any variant) take int_uniform/constant generators whose values fit the dtype.
bool check_integer_dtypes(Reader& r, const std::string& path, const std::string& tensor, const core::Generator& g,
                          const core::Spec& spec) {
  for (const auto& var : spec.variants) {
    const core::DType dt = var.dtypes.at(tensor);
    if (!core::dtype_is_integer(dt)) continue;
    const std::string what = fmt::format("tensor '{}' is {} in variant '{}'", tensor, core::dtype_name(dt), var.name);
    if (g.kind != "int_uniform" && g.kind != "constant")
      return r.fail(member_path(path, "kind"),
                    what + ": integer tensors take only \"int_uniform\" or \"constant\" generators");
    if (!g.specials.empty())
      return r.fail(member_path(path, "specials"), what + ": integer tensors take no specials");
    auto [lo, hi] = int_range(dt);
    if (g.kind == "constant") {
      if (g.value != std::trunc(g.value) || g.value < lo || g.value > hi)
        return r.fail(member_path(path, "value"), fmt::format("{}: {} is not a value of {}", what, g.value,
                                                              core::dtype_name(dt)));
    } else if (g.lo < lo || g.hi > hi) {
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
    if (!read_generator(r, value, p, g) || !check_integer_dtypes(r, p, key, g, spec)) return false;
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
