// Catalog (specs from several folders, growing at run time) and tensor_shape.
#include <algorithm>
#include <map>
#include <mutex>
#include <shared_mutex>

#include <fmt/format.h>

#include "spec/expr.hpp"
#include "spec/loader.hpp"

namespace kwb::spec {

namespace fs = std::filesystem;

struct Catalog::State {
  mutable std::shared_mutex mutex;
  // op -> version -> spec. Entries are never erased; a replaced spec moves to `retired`, so every
  // pointer handed out stays valid.
  std::map<std::string, std::map<int, std::shared_ptr<const core::Spec>>, std::less<>> specs;
  std::vector<std::shared_ptr<const core::Spec>> retired;
  uint64_t generation = 0;
};

Catalog::Catalog() : m_state(std::make_unique<State>()) {}
Catalog::~Catalog() = default;
Catalog::Catalog(Catalog&&) noexcept = default;
Catalog& Catalog::operator=(Catalog&&) noexcept = default;

namespace {

std::string where_of(const core::Spec& s) { return s.file.empty() ? s.op : s.file.string(); }

// The specs of <dir>/<op>/spec.json, in folder order; every invalid file is added to `errors`.
std::vector<core::Spec> load_folder(const fs::path& dir, bool optional, std::vector<util::Error>& errors) {
  std::vector<core::Spec> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    if (!optional)
      errors.push_back(util::Error{dir.string(), "not a directory (a spec catalog holds <dir>/<op>/spec.json)"});
    return out;
  }
  std::vector<fs::path> folders;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) folders.push_back(it->path());
  if (ec) {
    errors.push_back(util::Error{dir.string(), "cannot list: " + ec.message()});
    return out;
  }
  std::sort(folders.begin(), folders.end());
  for (const auto& folder : folders) {
    if (!fs::exists(folder / "spec.json", ec)) continue;  // not an op folder
    auto spec = load_spec_folder(folder, folder.filename().string());
    if (spec) out.push_back(std::move(*spec));
    else errors.push_back(spec.error());
  }
  if (out.empty() && errors.empty() && !optional)
    errors.push_back(util::Error{dir.string(), "no spec files found (expected <dir>/<op>/spec.json)"});
  return out;
}

util::Result<Catalog> finish(Catalog catalog, const std::vector<util::Error>& errors, const std::string& where) {
  if (errors.size() == 1) return std::unexpected(errors.front());
  if (!errors.empty()) {
    std::string message = fmt::format("{} spec files are invalid:", errors.size());
    for (const auto& e : errors) message += "\n  " + e.what();
    return util::fail(where, std::move(message));
  }
  if (catalog.ops().empty()) return util::fail(where, "no spec files found (expected <dir>/<op>/spec.json)");
  return catalog;
}

}  // namespace

util::Result<core::Spec> load_spec_folder(const fs::path& folder, std::string_view op) {
  const fs::path file = folder / "spec.json";
  auto spec = load_spec(file);
  if (!spec) return spec;
  if (spec->op != op)
    return util::fail(file.string() + ": op", fmt::format("\"{}\" must equal the name of its folder, \"{}\"", spec->op, op));
  return spec;
}

util::Result<Catalog> Catalog::load(const fs::path& dir) { return load(std::vector<CatalogSource>{{dir, false}}); }

util::Result<Catalog> Catalog::load(const std::vector<CatalogSource>& sources) {
  Catalog catalog;
  std::vector<util::Error> errors;
  for (const auto& source : sources) {
    std::vector<core::Spec> specs;
    if (!source.dir.empty()) {
      specs = load_folder(source.dir, source.optional, errors);
    } else {
      for (const auto& [op, folder] : source.folders) {
        auto spec = load_spec_folder(folder, op);
        if (spec) specs.push_back(std::move(*spec));
        else errors.push_back(spec.error());
      }
    }
    for (auto& spec : specs)
      if (auto added = catalog.add(std::move(spec)); !added) errors.push_back(added.error());
  }
  std::string where;
  for (const auto& s : sources)
    if (!s.dir.empty()) where += (where.empty() ? "" : ", ") + s.dir.string();
  return finish(std::move(catalog), errors, where);
}

util::Result<Catalog::Added> Catalog::add(core::Spec spec, bool replace) {
  std::unique_lock lock(m_state->mutex);
  auto& versions = m_state->specs[spec.op];
  auto it = versions.find(spec.version);
  if (it == versions.end()) {
    versions.emplace(spec.version, std::make_shared<const core::Spec>(std::move(spec)));
    ++m_state->generation;
    return Added::added;
  }
  const core::Spec& held = *it->second;
  if (held.digest != spec.digest)
    return util::fail(where_of(spec),
                      fmt::format("op '{}' version {} differs in meaning from {} (the reference, a tolerance, a "
                                  "distribution, the workloads or another meaning-bearing field changed): a changed "
                                  "spec needs a new version (\"version\": {})",
                                  spec.op, spec.version, where_of(held), versions.rbegin()->first + 1));
  if (!replace) return Added::unchanged;
  m_state->retired.push_back(std::move(it->second));
  it->second = std::make_shared<const core::Spec>(std::move(spec));
  ++m_state->generation;
  return Added::replaced;
}

const core::Spec* Catalog::find(std::string_view op) const {
  std::shared_lock lock(m_state->mutex);
  auto it = m_state->specs.find(op);
  return it == m_state->specs.end() || it->second.empty() ? nullptr : it->second.rbegin()->second.get();
}

const core::Spec* Catalog::find(std::string_view op, int version) const {
  std::shared_lock lock(m_state->mutex);
  auto it = m_state->specs.find(op);
  if (it == m_state->specs.end()) return nullptr;
  auto v = it->second.find(version);
  return v == it->second.end() ? nullptr : v->second.get();
}

std::vector<std::string> Catalog::ops() const {
  std::shared_lock lock(m_state->mutex);
  std::vector<std::string> out;
  for (const auto& [op, versions] : m_state->specs)
    if (!versions.empty()) out.push_back(op);
  return out;
}

std::vector<int> Catalog::versions(std::string_view op) const {
  std::shared_lock lock(m_state->mutex);
  std::vector<int> out;
  if (auto it = m_state->specs.find(op); it != m_state->specs.end())
    for (const auto& [v, spec] : it->second) out.push_back(v);
  return out;
}

uint64_t Catalog::generation() const {
  std::shared_lock lock(m_state->mutex);
  return m_state->generation;
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
