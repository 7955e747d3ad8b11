// parse_spec / load_spec: the top level of a spec file, params and tensors (docs/specs.md).
#include "spec/loader.hpp"

#include <climits>
#include <fmt/format.h>

#include "spec/digest.hpp"
#include "spec/expr.hpp"
#include "spec/loader_parts.hpp"
#include "spec/templates.hpp"
#include "util/fs.hpp"

namespace kwb::spec {

namespace detail {

long find_index(const std::vector<std::string>& names, const std::string& name) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return long(i);
  return -1;
}

std::vector<std::string> variant_names(const core::Spec& spec) {
  std::vector<std::string> names;
  for (const auto& v : spec.variants) names.push_back(v.name);
  return names;
}

bool read_expression(Reader& r, const Json& j, const std::string& path, const core::Spec& spec, std::string& out) {
  if (j.is_number_integer()) {
    int64_t v = 0;
    if (!r.integer(j, path, v)) return false;
    out = std::to_string(v);
  } else if (j.is_string()) {
    out = j.get<std::string>();
  } else {
    return r.fail(path, "expected an expression (string) or an integer, got " + describe(j));
  }
  auto e = Expr::parse(out);
  if (!e) return r.fail(path, "bad expression " + e.error().message);
  for (const auto& name : e->names()) {
    if (find_index(spec.params, name) >= 0) continue;
    std::string declared = spec.params.empty() ? "no params are declared" : "declared params: " + join(spec.params);
    return r.fail(path, fmt::format("unknown name '{}' in \"{}\" ({})", name, out, declared));
  }
  return true;
}

namespace {

bool read_params(Reader& r, const Json& j, const std::string& path, core::Spec& spec) {
  if (!r.array(j, path, /*non_empty=*/false)) return false;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    std::string name;
    if (!r.c_identifier(j[i], p, name)) return false;
    if (name == "min" || name == "max" || name == "ceil_div")
      return r.fail(p, fmt::format("'{}' is a function of the expression language; pick another name", name));
    if (long k = find_index(spec.params, name); k >= 0)
      return r.fail(p, fmt::format("duplicate param '{}' (also {})", name, index_path(path, size_t(k))));
    spec.params.push_back(name);
  }
  return true;
}

// [{"name": "eps", "value": 1e-5}, {"name": "theta"}]: doubles passed after the params.
bool read_scalars(Reader& r, const Json& j, const std::string& path, core::Spec& spec) {
  if (!r.array(j, path, /*non_empty=*/false)) return false;
  std::vector<std::string> names;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    if (!r.object(j[i], p, {"name", "value"})) return false;
    core::ScalarSpec s;
    const Json* v = r.required(j[i], p, "name");
    const std::string np = member_path(p, "name");
    if (!v || !r.c_identifier(*v, np, s.name)) return false;
    if (s.name == "min" || s.name == "max" || s.name == "ceil_div" || s.name == "workspace")
      return r.fail(np, fmt::format("'{}' is reserved (a function of the expression language or the launch plan's "
                                    "workspace); pick another name",
                                    s.name));
    if (long k = find_index(spec.params, s.name); k >= 0)
      return r.fail(np, fmt::format("'{}' is also a param (params[{}]): scalars and params share the entry point's "
                                    "argument names",
                                    s.name, k));
    if (long k = find_index(names, s.name); k >= 0)
      return r.fail(np, fmt::format("duplicate scalar '{}' (also {})", s.name, index_path(path, size_t(k))));
    if (const Json* d = Reader::optional(j[i], "value")) {
      double x = 0;
      if (!r.number(*d, member_path(p, "value"), x)) return false;
      s.value = x;
    }
    names.push_back(s.name);
    spec.scalars.push_back(std::move(s));
  }
  return true;
}

// "set": {"of": "x", "values": "vals"} on an index output (docs/specs.md "Set outputs"): the names
// are checked here, the dtypes once the variants are read (check_set_rules, variants.cpp).
bool read_set_rule(Reader& r, const Json& j, const std::string& path, const core::TensorSpec& t,
                   core::SetRule& out) {
  if (!r.object(j, path, {"of", "values"})) return false;
  if (t.role != core::Role::out)
    return r.fail(path, fmt::format("tensor '{}' has role \"{}\": a set rule compares an output (role \"out\") of "
                                    "indices",
                                    t.name, core::role_name(t.role)));
  if (t.shape.empty()) return r.fail(path, "a set rule needs at least one dimension (the indices of a row)");
  const Json* v = r.required(j, path, "of");
  if (!v || !r.c_identifier(*v, member_path(path, "of"), out.of)) return false;
  if (const Json* x = Reader::optional(j, "values"); x && !r.c_identifier(*x, member_path(path, "values"), out.values))
    return false;
  return true;
}

// The tensors a set rule names exist, with the roles and ranks it needs.
bool check_set_names(Reader& r, const std::string& path, const core::Spec& spec) {
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const core::TensorSpec& t = spec.tensors[i];
    if (!t.set) continue;
    const std::string p = member_path(index_path(path, i), "set");
    const core::TensorSpec* of = spec.find_tensor(t.set->of);
    if (!of || of->role == core::Role::out)
      return r.fail(member_path(p, "of"), fmt::format("'{}' is not an input tensor: the indices point into an input "
                                                      "(role \"in\" or \"inout\")",
                                                      t.set->of));
    if (of->shape.size() != t.shape.size())
      return r.fail(member_path(p, "of"), fmt::format("'{}' has {} dimensions and '{}' {}: the indices of a row point "
                                                      "into the same row of '{}' (its last dimension)",
                                                      of->name, of->shape.size(), t.name, t.shape.size(), of->name));
    if (t.optional || of->optional)
      return r.fail(p, "a set rule's tensors cannot be optional");
    if (t.set->values.empty()) continue;
    const core::TensorSpec* values = spec.find_tensor(t.set->values);
    if (!values || values->role != core::Role::out || values == &t)
      return r.fail(member_path(p, "values"), fmt::format("'{}' is not another output tensor (role \"out\")",
                                                          t.set->values));
    if (values->shape != t.shape)
      return r.fail(member_path(p, "values"), fmt::format("'{}' has shape [{}], '{}' [{}]: a value is reported beside "
                                                          "each index, so the shapes are written the same",
                                                          values->name, join(values->shape), t.name, join(t.shape)));
    if (values->optional) return r.fail(p, "a set rule's tensors cannot be optional");
  }
  return true;
}

bool read_role(Reader& r, const Json& j, const std::string& path, core::Role& out) {
  std::string s;
  if (!r.string(j, path, s)) return false;
  if (s == "in") out = core::Role::in;
  else if (s == "out") out = core::Role::out;
  else if (s == "inout") out = core::Role::inout;
  else return r.fail(path, fmt::format("expected one of \"in\", \"out\", \"inout\", got {}", j.dump()));
  return true;
}

bool read_tensors(Reader& r, const Json& j, const std::string& path, core::Spec& spec) {
  if (!r.array(j, path, /*non_empty=*/true)) return false;
  std::vector<std::string> names;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    const Json& jt = j[i];
    if (!r.object(jt, p, {"name", "role", "shape", "finite", "optional", "set"})) return false;
    core::TensorSpec t;
    const Json* v = r.required(jt, p, "name");
    if (!v || !r.c_identifier(*v, member_path(p, "name"), t.name)) return false;
    if (long k = find_index(names, t.name); k >= 0)
      return r.fail(member_path(p, "name"),
                    fmt::format("duplicate tensor name '{}' (also {})", t.name, index_path(path, size_t(k))));
    for (const auto& s : spec.scalars)
      if (s.name == t.name)
        return r.fail(member_path(p, "name"), fmt::format("'{}' is also a scalar: tensors, params and scalars are "
                                                          "the entry point's argument names",
                                                          t.name));
    v = r.required(jt, p, "role");
    if (!v || !read_role(r, *v, member_path(p, "role"), t.role)) return false;
    v = r.required(jt, p, "shape");
    const std::string sp = member_path(p, "shape");
    if (!v || !r.array(*v, sp, /*non_empty=*/false)) return false;
    for (size_t d = 0; d < v->size(); ++d) {
      std::string text;
      if (!read_expression(r, (*v)[d], index_path(sp, d), spec, text)) return false;
      t.shape.push_back(std::move(text));
    }
    if (const Json* f = Reader::optional(jt, "finite")) {
      const std::string fp = member_path(p, "finite");
      bool finite = false;
      if (!r.boolean(*f, fp, finite)) return false;
      if (t.role == core::Role::in)
        return r.fail(fp, fmt::format("tensor '{}' is an input (role \"in\"): \"finite\" is a promise about outputs",
                                      t.name));
      t.finite = finite;
    }
    if (const Json* o = Reader::optional(jt, "optional"); o && !r.boolean(*o, member_path(p, "optional"), t.optional))
      return false;
    if (const Json* st = Reader::optional(jt, "set")) {
      core::SetRule rule;
      if (!read_set_rule(r, *st, member_path(p, "set"), t, rule)) return false;
      t.set = std::move(rule);
    }
    names.push_back(t.name);
    spec.tensors.push_back(std::move(t));
  }
  if (!check_set_names(r, path, spec)) return false;
  for (const auto& t : spec.tensors)
    if (t.role != core::Role::in && !t.optional) return true;
  return r.fail(path, "no output: at least one tensor that is not optional needs role \"out\" or \"inout\"");
}

bool read_spec(Reader& r, const Json& j, core::Spec& spec) {
  if (!r.object(j, "", {"op", "version", "summary", "deterministic", "alignment", "params", "scalars", "tensors", "variants",
                        "distributions", "workloads", "baselines", "shapes", "gpu_reference",
                        // Output only (spec::to_json derives it); a spec read back from it ignores it.
                        "contract"}))
    return false;
  const Json* v = r.required(j, "", "op");
  if (!v || !r.op_name(*v, "op", spec.op)) return false;
  v = r.required(j, "", "version");
  int64_t version = 0;
  if (!v || !r.integer(*v, "version", version)) return false;
  if (version < 1 || version > INT_MAX) return r.fail("version", fmt::format("must be >= 1, got {}", version));
  spec.version = int(version);
  v = r.required(j, "", "summary");
  if (!v || !r.non_empty_string(*v, "summary", spec.summary)) return false;
  if (const Json* d = Reader::optional(j, "deterministic"); d && !r.boolean(*d, "deterministic", spec.deterministic))
    return false;
  if (const Json* a = Reader::optional(j, "alignment")) {
    int64_t bytes = 0;
    if (!r.integer(*a, "alignment", bytes)) return false;
    if (bytes < 1 || bytes > core::Spec::k_max_alignment_bytes || (bytes & (bytes - 1)) != 0)
      return r.fail("alignment", fmt::format("must be a power of two from 1 to {} (bytes every tensor's first element "
                                             "is aligned to), got {}",
                                             core::Spec::k_max_alignment_bytes, bytes));
    spec.alignment = int(bytes);
  }
  v = r.required(j, "", "params");
  if (!v || !read_params(r, *v, "params", spec)) return false;
  if (const Json* sc = Reader::optional(j, "scalars"); sc && !read_scalars(r, *sc, "scalars", spec)) return false;
  v = r.required(j, "", "tensors");
  if (!v || !read_tensors(r, *v, "tensors", spec)) return false;
  v = r.required(j, "", "variants");
  if (!v || !read_variants(r, *v, "variants", spec)) return false;
  v = r.required(j, "", "distributions");
  if (!v || !read_distributions(r, *v, "distributions", spec)) return false;
  v = r.required(j, "", "workloads");
  if (!v || !read_workloads(r, *v, "workloads", spec)) return false;
  if (const Json* b = Reader::optional(j, "baselines"); b && !read_baselines(r, *b, "baselines", spec)) return false;
  if (const Json* s = Reader::optional(j, "shapes"); s && !read_shapes(r, *s, "shapes", spec)) return false;
  const Json* g = Reader::optional(j, "gpu_reference");
  return !g || read_gpu_reference(r, *g, "gpu_reference", spec);
}

}  // namespace
}  // namespace detail

util::Result<core::Spec> parse_spec(std::string_view text, const std::filesystem::path& file) {
  auto doc = detail::parse_json(text, file.string());
  if (!doc) return std::unexpected(doc.error());
  detail::Reader r(file.string());
  core::Spec spec;
  spec.file = file;
  if (!detail::read_spec(r, *doc, spec)) return std::unexpected(r.error());
  auto digest = meaning_digest(text, {}, file.string());
  if (!digest) return std::unexpected(digest.error());
  spec.digest = std::move(*digest);
  return spec;
}

util::Result<core::Spec> load_spec(const std::filesystem::path& file) {
  auto text = util::read_file(file);
  if (!text) return std::unexpected(text.error());
  auto spec = parse_spec(*text, file);
  if (!spec) return spec;
  auto references = read_reference_sources(file.parent_path());
  if (!references) return std::unexpected(references.error());
  if (auto t = read_templates(file.parent_path(), *spec); !t) return std::unexpected(t.error());
  auto digest = meaning_digest(*text, *references, file.string());
  if (!digest) return std::unexpected(digest.error());
  spec->digest = std::move(*digest);
  return spec;
}

}  // namespace kwb::spec
