// The optional "baselines" section: vendor baselines (cuBLAS, CUB) as trusted `cuda-launcher`
// sources next to spec.json. Each is validated and its source read into core::Baseline::source.
#include <fmt/format.h>

#include "core/backend.hpp"
#include "spec/loader_parts.hpp"

namespace kwb::spec::detail {

namespace {

// The only form whose host code can call a vendor library (cuBLAS handles, CUB dispatch).
const std::string_view k_backend = core::backend_name(core::Backend::cuda_launcher);

bool read_variant_list(Reader& r, const Json& j, const std::string& path, const core::Spec& spec,
                       core::Baseline& b) {
  if (!r.array(j, path, /*non_empty=*/true)) return false;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    std::string name;
    if (!r.string(j[i], p, name)) return false;
    if (!spec.find_variant(name))
      return r.fail(p, fmt::format("unknown variant '{}' (variants: {})", name, join(variant_names(spec))));
    if (long k = find_index(b.variants, name); k >= 0)
      return r.fail(p, fmt::format("duplicate variant '{}' (also {})", name, index_path(path, size_t(k))));
    b.variants.push_back(name);
  }
  return true;
}

bool read_flags(Reader& r, const Json& j, const std::string& path, core::Baseline& b) {
  if (!r.array(j, path, /*non_empty=*/false)) return false;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    std::string flag;
    if (!r.non_empty_string(j[i], p, flag)) return false;
    if (!flag.starts_with("-"))
      return r.fail(p, fmt::format("expected an nvcc option starting with '-', got {}", j[i].dump()));
    if (flag.find_first_of(" \t\n\r\v\f") != std::string::npos)
      return r.fail(p, fmt::format("{} contains whitespace: give one argument per array element", j[i].dump()));
    b.flags.push_back(std::move(flag));
  }
  return true;
}

bool read_baseline(Reader& r, const Json& j, const std::string& path, const core::Spec& spec, core::Baseline& b) {
  if (!r.object(j, path, {"name", "file", "backend", "variants", "flags", "note"})) return false;
  const Json* v = r.required(j, path, "name");
  if (!v || !r.label_name(*v, member_path(path, "name"), b.name)) return false;
  v = r.required(j, path, "backend");
  const std::string bp = member_path(path, "backend");
  if (!v || !r.string(*v, bp, b.backend)) return false;
  if (b.backend != k_backend)
    return r.fail(bp, fmt::format("expected \"{}\" (the only form whose host code can call a vendor library), got {}",
                                  k_backend, v->dump()));
  v = r.required(j, path, "variants");
  if (!v || !read_variant_list(r, *v, member_path(path, "variants"), spec, b)) return false;
  if (const Json* f = Reader::optional(j, "flags"); f && !read_flags(r, *f, member_path(path, "flags"), b))
    return false;
  if (const Json* n = Reader::optional(j, "note"); n && !r.string(*n, member_path(path, "note"), b.note))
    return false;
  v = r.required(j, path, "file");
  return v && read_source_file(r, *v, member_path(path, "file"), spec, "a cuda-launcher source", b.file, b.source);
}

}  // namespace

bool read_baselines(Reader& r, const Json& j, const std::string& path, core::Spec& spec) {
  if (!r.array(j, path, /*non_empty=*/false)) return false;
  std::vector<std::string> names;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = index_path(path, i);
    core::Baseline b;
    if (!read_baseline(r, j[i], p, spec, b)) return false;
    if (long k = find_index(names, b.name); k >= 0)
      return r.fail(member_path(p, "name"),
                    fmt::format("duplicate baseline name '{}' (also {})", b.name, index_path(path, size_t(k))));
    names.push_back(b.name);
    spec.baselines.push_back(std::move(b));
  }
  return true;
}

}  // namespace kwb::spec::detail
