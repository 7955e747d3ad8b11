// Catalog (every <dir>/<op>/spec.json) and tensor_shape.
#include <algorithm>
#include <fmt/format.h>

#include "spec/expr.hpp"
#include "spec/loader.hpp"

namespace kwb::spec {

namespace fs = std::filesystem;

util::Result<Catalog> Catalog::load(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return util::fail(dir.string(), "not a directory (a spec catalog holds <dir>/<op>/spec.json)");
  std::vector<fs::path> folders;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) folders.push_back(it->path());
  if (ec) return util::fail(dir.string(), "cannot list: " + ec.message());
  std::sort(folders.begin(), folders.end());

  Catalog catalog;
  std::vector<util::Error> errors;
  for (const auto& folder : folders) {
    const fs::path file = folder / "spec.json";
    if (!fs::exists(file, ec)) continue;  // not an op folder
    auto spec = load_spec(file);
    if (!spec) {
      errors.push_back(spec.error());
      continue;
    }
    const std::string name = folder.filename().string();
    if (spec->op != name) {
      errors.push_back(util::Error{file.string() + ": op",
                                   fmt::format("\"{}\" must equal the name of its folder, \"{}\"", spec->op, name)});
      continue;
    }
    catalog.m_specs.emplace(name, std::move(*spec));
  }
  if (errors.size() == 1) return std::unexpected(errors.front());
  if (!errors.empty()) {
    std::string message = fmt::format("{} spec files are invalid:", errors.size());
    for (const auto& e : errors) message += "\n  " + e.what();
    return util::fail(dir.string(), std::move(message));
  }
  if (catalog.m_specs.empty()) return util::fail(dir.string(), "no spec files found (expected <dir>/<op>/spec.json)");
  return catalog;
}

const core::Spec* Catalog::find(std::string_view op) const {
  auto it = m_specs.find(op);
  return it == m_specs.end() ? nullptr : &it->second;
}

std::vector<std::string> Catalog::ops() const {
  std::vector<std::string> out;
  for (const auto& [op, spec] : m_specs) out.push_back(op);
  return out;
}

util::Result<std::vector<int64_t>> tensor_shape(const core::Spec& spec, const core::TensorSpec& t,
                                                const std::map<std::string, int64_t>& params) {
  const std::string where =
      fmt::format("{}: tensor '{}'", spec.file.empty() ? spec.op : spec.file.string(), t.name);
  const Env env(params.begin(), params.end());
  std::vector<int64_t> dims;
  int64_t elements = 1;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    auto v = evaluate(t.shape[i], env);
    if (!v) return util::fail(where, fmt::format("dimension {}: {}", i, v.error().message));
    if (*v < 1)
      return util::fail(where, fmt::format("dimension {} \"{}\" is {}; dimensions must be >= 1", i, t.shape[i], *v));
    if (__builtin_mul_overflow(elements, *v, &elements))
      return util::fail(where, "the element count does not fit in 64 bits");
    dims.push_back(*v);
  }
  return dims;
}

util::Result<void> check_bench_selection(const core::Spec& spec, std::string_view backend,
                                         const std::vector<std::string>& names) {
  std::string known;
  for (const auto& w : spec.bench_workloads)
    if (w.runs_on(backend)) known += (known.empty() ? "" : ", ") + w.name;
  for (size_t i = 0; i < names.size(); ++i) {
    bool found = false;
    for (const auto& w : spec.bench_workloads) found = found || (w.name == names[i] && w.runs_on(backend));
    if (!found)
      return util::fail("bench[" + std::to_string(i) + "]", "op " + spec.op + " has no " + std::string(backend) +
                                                                 " bench workload '" + names[i] + "' (known: " + known + ")");
  }
  return {};
}

}  // namespace kwb::spec
