// The "variants" section: per-variant entry symbol, dtypes, tolerances and roofline.
#include <fmt/format.h>

#include "spec/loader_parts.hpp"

namespace kwb::spec::detail {

namespace {

constexpr core::DType k_all_dtypes[] = {core::DType::f32,    core::DType::f64,    core::DType::bf16,
                                        core::DType::f16,    core::DType::i32,    core::DType::u32,
                                        core::DType::i64,    core::DType::u8,     core::DType::f8e4m3,
                                        core::DType::f8e5m2, core::DType::i8};

std::string known_dtypes() {
  std::vector<std::string> names;
  for (auto t : k_all_dtypes) names.emplace_back(core::dtype_name(t));
  return join(names);
}

std::vector<std::string> tensor_names(const core::Spec& spec) {
  std::vector<std::string> names;
  for (const auto& t : spec.tensors) names.push_back(t.name);
  return names;
}

bool read_dtypes(Reader& r, const Json& j, const std::string& path, const core::Spec& spec, core::Variant& var) {
  if (!r.any_object(j, path)) return false;
  for (const auto& [key, value] : j.items()) {
    const std::string p = member_path(path, key);
    if (!spec.find_tensor(key))
      return r.fail(p, fmt::format("unknown tensor '{}' (tensors: {})", key, join(tensor_names(spec))));
    std::string name;
    if (!r.string(value, p, name)) return false;
    auto dt = core::parse_dtype(name);
    if (!dt) return r.fail(p, fmt::format("unknown dtype '{}' (known: {})", name, known_dtypes()));
    var.dtypes[key] = *dt;
  }
  for (const auto& t : spec.tensors)
    if (!var.dtypes.contains(t.name) && !t.optional)
      return r.fail(member_path(path, t.name), "missing: every tensor needs a dtype (only tensors declared "
                                               "\"optional\": true may be left out, which leaves them out of the "
                                               "variant)");
  return true;
}

bool read_tolerance(Reader& r, const Json& j, const std::string& path, core::Tolerance& tol) {
  if (!r.object(j, path, {"exact", "atol", "rtol"})) return false;
  if (const Json* e = Reader::optional(j, "exact")) {
    const std::string p = member_path(path, "exact");
    bool exact = false;
    if (!r.boolean(*e, p, exact)) return false;
    if (!exact) return r.fail(p, "must be true when given; for a tolerance write {\"atol\": ..., \"rtol\": ...}");
    if (j.size() != 1)
      return r.fail(path, "give either {\"exact\": true} or {\"atol\": ..., \"rtol\": ...}, not both");
    tol.exact = true;
    return true;
  }
  for (const char* key : {"atol", "rtol"}) {
    const std::string p = member_path(path, key);
    const Json* v = Reader::optional(j, key);
    if (!v)
      return r.fail(p, "missing: a tolerance needs both \"atol\" and \"rtol\" (there are no defaults), "
                       "or write {\"exact\": true}");
    double x = 0;
    if (!r.number(*v, p, x)) return false;
    if (x < 0) return r.fail(p, fmt::format("must be >= 0, got {}", v->dump()));
    (key[0] == 'a' ? tol.atol : tol.rtol) = x;
  }
  return true;
}

bool read_tolerances(Reader& r, const Json& j, const std::string& path, const core::Spec& spec,
                     core::Variant& var) {
  if (!r.any_object(j, path)) return false;
  for (const auto& [key, value] : j.items()) {
    const std::string p = member_path(path, key);
    const core::TensorSpec* t = spec.find_tensor(key);
    if (!t) return r.fail(p, fmt::format("unknown tensor '{}' (tensors: {})", key, join(tensor_names(spec))));
    if (t->role == core::Role::in)
      return r.fail(p, fmt::format("tensor '{}' is an input (role \"in\"): only out/inout tensors take a tolerance",
                                   key));
    if (!var.has(key))
      return r.fail(p, fmt::format("optional tensor '{}' is not part of this variant (it gives it no dtype): it takes "
                                   "no tolerance",
                                   key));
    core::Tolerance tol;
    if (!read_tolerance(r, value, p, tol)) return false;
    const core::DType dt = var.dtypes.at(key);
    if (core::dtype_is_integer(dt) && !tol.exact)
      return r.fail(p, fmt::format("tensor '{}' has integer dtype {}: its tolerance must be {{\"exact\": true}}", key,
                                   core::dtype_name(dt)));
    // fp8 outputs are compared after decoding; their relative precision (2^-3 or 2^-2) makes an
    // rtol either meaningless or a loophole, so only the two forms below are allowed.
    if (core::dtype_is_fp8(dt) && !tol.exact && tol.rtol != 0)
      return r.fail(member_path(p, "rtol"),
                    fmt::format("tensor '{}' has dtype {}: an fp8 output is compared after decoding, with "
                                "{{\"exact\": true}} or an absolute tolerance {{\"atol\": a, \"rtol\": 0}}; got rtol {}",
                                key, core::dtype_name(dt), tol.rtol));
    var.tolerance[key] = tol;
  }
  for (const auto& t : spec.tensors)
    if (t.role != core::Role::in && var.has(t.name) && !var.tolerance.contains(t.name))
      return r.fail(member_path(path, t.name),
                    "missing: every out/inout tensor needs a tolerance ({\"atol\": ..., \"rtol\": ...} or "
                    "{\"exact\": true}); there are no defaults");
  return true;
}

bool read_roofline(Reader& r, const Json& j, const std::string& path, const core::Spec& spec, core::Roofline& out) {
  if (!r.object(j, path, {"bytes", "flops"})) return false;
  const Json* v = r.required(j, path, "bytes");
  if (!v || !read_expression(r, *v, member_path(path, "bytes"), spec, out.bytes)) return false;
  v = r.required(j, path, "flops");
  return v && read_expression(r, *v, member_path(path, "flops"), spec, out.flops);
}

// Set rules (docs/specs.md "Set outputs"): the index output is an integer tensor in every variant.
bool check_set_rules(Reader& r, const std::string& path, const core::Spec& spec, const core::Variant& var) {
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const core::TensorSpec& t = spec.tensors[i];
    if (!t.set) continue;
    const core::DType dt = var.dtypes.at(t.name);
    if (!core::dtype_is_integer(dt))
      return r.fail(fmt::format("tensors[{}].set", i),
                    fmt::format("tensor '{}' is {} in variant '{}' ({}): a set rule belongs on an output of indices "
                                "(an integer dtype); put it on the index output and name this one in its \"values\"",
                                t.name, core::dtype_name(dt), var.name, path));
  }
  return true;
}

bool read_variant(Reader& r, const Json& j, const std::string& path, const core::Spec& spec, core::Variant& var) {
  if (!r.object(j, path, {"name", "entry", "dtypes", "tolerance", "roofline"})) return false;
  const Json* v = r.required(j, path, "name");
  if (!v || !r.label_name(*v, member_path(path, "name"), var.name)) return false;
  v = r.required(j, path, "entry");
  if (!v || !r.c_identifier(*v, member_path(path, "entry"), var.entry)) return false;
  v = r.required(j, path, "dtypes");
  if (!v || !read_dtypes(r, *v, member_path(path, "dtypes"), spec, var)) return false;
  v = r.required(j, path, "tolerance");
  if (!v || !read_tolerances(r, *v, member_path(path, "tolerance"), spec, var)) return false;
  v = r.required(j, path, "roofline");
  if (!v || !read_roofline(r, *v, member_path(path, "roofline"), spec, var.roofline)) return false;
  bool output = false;
  for (const auto& t : spec.tensors) output = output || (t.role != core::Role::in && var.has(t.name));
  if (!output) return r.fail(member_path(path, "dtypes"), "no output: the variant leaves out every output tensor");
  return check_set_rules(r, path, spec, var);
}

}  // namespace

bool read_variants(Reader& r, const Json& j, const std::string& path, core::Spec& spec) {
  if (!r.array(j, path, /*non_empty=*/true)) return false;
  std::vector<std::string> names, entries;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    core::Variant var;
    if (!read_variant(r, j[i], p, spec, var)) return false;
    if (long k = find_index(names, var.name); k >= 0)
      return r.fail(member_path(p, "name"),
                    fmt::format("duplicate variant name '{}' (also {})", var.name, index_path(path, size_t(k))));
    if (long k = find_index(entries, var.entry); k >= 0)
      return r.fail(member_path(p, "entry"),
                    fmt::format("duplicate entry symbol '{}' (also {})", var.entry, index_path(path, size_t(k))));
    names.push_back(var.name);
    entries.push_back(var.entry);
    spec.variants.push_back(std::move(var));
  }
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const core::TensorSpec& t = spec.tensors[i];
    bool used = !t.optional;
    for (const auto& v : spec.variants) used = used || v.has(t.name);
    if (!used)
      return r.fail(member_path(index_path("tensors", i), "optional"),
                    fmt::format("no variant has optional tensor '{}' (give it a dtype in the variants that take it)",
                                t.name));
  }
  return true;
}

}  // namespace kwb::spec::detail
