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
    if (!r.object(jt, p, {"name", "role", "shape", "finite"})) return false;
    core::TensorSpec t;
    const Json* v = r.required(jt, p, "name");
    if (!v || !r.c_identifier(*v, member_path(p, "name"), t.name)) return false;
    if (long k = find_index(names, t.name); k >= 0)
      return r.fail(member_path(p, "name"),
                    fmt::format("duplicate tensor name '{}' (also {})", t.name, index_path(path, size_t(k))));
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
    names.push_back(t.name);
    spec.tensors.push_back(std::move(t));
  }
  for (const auto& t : spec.tensors)
    if (t.role != core::Role::in) return true;
  return r.fail(path, "no output: at least one tensor needs role \"out\" or \"inout\"");
}

bool read_spec(Reader& r, const Json& j, core::Spec& spec) {
  if (!r.object(j, "", {"op", "version", "summary", "deterministic", "params", "tensors", "variants",
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
  v = r.required(j, "", "params");
  if (!v || !read_params(r, *v, "params", spec)) return false;
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
