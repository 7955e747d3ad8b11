// SpecIntake: check, validate, commit and serve a spec sent as files.
#include "library/spec_intake.hpp"

#include <cctype>

#include <fmt/format.h>

#include "spec/digest.hpp"
#include "spec/loader.hpp"
#include "spec/spec_json.hpp"
#include "spec/templates.hpp"
#include "util/fs.hpp"

namespace kwb::library {

namespace fs = std::filesystem;
using Code = SpecAddResult::Code;

namespace {

bool is_file_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  if (!(std::isalnum(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;  // no hidden files
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return false;
  return name.find("..") == std::string::npos;
}

SpecAddResult failed(Code code, util::Error e) {
  SpecAddResult r;
  r.code = code;
  r.error = std::move(e);
  return r;
}

// The loader's errors name the staging folder; the sender knows the files by name only.
util::Error as_sent(util::Error e, const fs::path& staged) {
  const std::string prefix = staged.string() + "/";
  for (std::string* s : {&e.where, &e.message}) {
    for (size_t at; (at = s->find(prefix)) != std::string::npos;) s->erase(at, prefix.size());
  }
  return e;
}

// Removes the staging folder unless it was moved away.
struct Staged {
  fs::path dir;
  ~Staged() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

}  // namespace

util::Result<void> check_spec_files(const FolderFiles& files, const SpecFileLimits& limits) {
  if (files.empty()) return util::fail("files", "no files: a spec folder needs at least spec.json and reference.cpp");
  if (files.size() > limits.max_files)
    return util::fail("files", fmt::format("{} files; a spec folder may hold at most {}", files.size(), limits.max_files));
  size_t total = 0;
  for (const auto& [name, content] : files) {
    if (!is_file_name(name))
      return util::fail("files." + name, "not a plain file name: names are [A-Za-z0-9_][A-Za-z0-9_.-]* of at most 64 "
                                          "characters, with no path, no '..' and no leading dot");
    if (content.size() > limits.max_file_bytes)
      return util::fail("files." + name, fmt::format("{} bytes; a file may hold at most {}", content.size(),
                                                     limits.max_file_bytes));
    total += content.size();
  }
  if (total > limits.max_total_bytes)
    return util::fail("files", fmt::format("{} bytes in all; a spec folder may hold at most {}", total, limits.max_total_bytes));
  for (const char* required : {"spec.json", "reference.cpp"})
    if (!files.contains(required))
      return util::fail(std::string("files.") + required, "missing: a spec folder holds spec.json and reference.cpp "
                                                          "(optionally reference.cu and baselines)");
  return {};
}

util::Result<void> validate_new_spec(const core::Spec& spec, const FolderFiles& files, const fs::path& folder,
                                     const SpecCheck& deep) {
  if (spec.op == "specs")
    return util::fail("spec.json: op", "'specs' is reserved (the library keeps specs in its folder specs/)");
  if (spec.op == "report")
    return util::fail("spec.json: op", "'report' is reserved (GET /v1/library/report is the library's scorecard)");
  for (const auto& [name, content] : files) {
    bool known = name == "spec.json" || name == "README.md" || spec::is_reference_source(name) ||
                 spec::is_template_file(name);
    for (const auto& b : spec.baselines) known = known || b.file == name;
    if (!known)
      return util::fail("files." + name, "not part of the spec: a spec folder holds spec.json, reference sources "
                                          "(reference.cpp, reference.cu, reference*), the files its baselines name, "
                                          "templates (template.<variant>.cpp|.cu|.launcher.cu) and README.md");
  }
  // The run-time reference build (eval::ReferenceHost::build) and `kwb spec check` run here.
  if (deep)
    if (auto r = deep(spec, folder); !r) return r;
  return {};
}

nlohmann::json SpecAddResult::body() const {
  nlohmann::json j = {{"status", code == Code::added ? "added" : "unchanged"}};
  if (spec) {
    j["op"] = spec->op;
    j["version"] = spec->version;
    j["digest"] = spec->digest;
    j["spec"] = spec::to_json(*spec);
  }
  j["commit"] = commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(commit);
  j["replaces"] = replaced.empty() ? nlohmann::json(nullptr) : nlohmann::json(replaced);
  return j;
}

SpecAddResult SpecIntake::add(const FolderFiles& files, const std::string& added_by) {
  if (auto ok = check_spec_files(files); !ok) return failed(Code::invalid, ok.error());
  auto made = util::make_unique_dir(m_root / ".incoming", "spec-");
  if (!made) return failed(Code::internal, made.error());
  Staged staged{*made};
  for (const auto& [name, content] : files)
    if (auto w = util::write_file_atomic(staged.dir / name, content); !w) return failed(Code::internal, w.error());
  auto loaded = spec::load_spec(staged.dir / "spec.json");
  if (!loaded) return failed(Code::invalid, as_sent(loaded.error(), staged.dir));
  const core::Spec& spec = *loaded;
  if (auto ok = validate_new_spec(spec, files, staged.dir, m_deep); !ok)
    return failed(Code::invalid, as_sent(ok.error(), staged.dir));

  std::lock_guard lock(m_mutex);
  const core::Spec* current = m_catalog.find(spec.op);
  const core::Spec* same_version = m_catalog.find(spec.op, spec.version);
  if (current && spec.version < current->version)
    return failed(Code::conflict,
                  {"spec.json: version", fmt::format("op '{}' is at version {} ({}); versions only go up: give this "
                                                     "spec version {} or more", spec.op, current->version,
                                                     current->file.string(), current->version + 1)});
  if (same_version && same_version->digest != spec.digest)
    return failed(Code::conflict,
                  {"spec.json: version",
                   fmt::format("op '{}' version {} is already served ({}) with another meaning: its reference, a "
                               "tolerance, a distribution, the workloads or another meaning-bearing field differ. "
                               "A changed spec needs a new version: \"version\": {}",
                               spec.op, spec.version, same_version->file.string(), current->version + 1)});

  const std::string digest = folder_digest(files);
  std::string replaced = same_version ? fmt::format("v{} (descriptive edit)", spec.version)
                         : current   ? fmt::format("v{}", current->version)
                                     : "";
  std::string commit;
  for (int attempt = 0;; ++attempt) {
    if (attempt == 8) return failed(Code::conflict, {"library", "the library kept moving (8 attempts); try again"});
    auto head = m_repo.head();
    if (!head) return failed(Code::internal, head.error());
    auto held = spec_folders(m_repo, *head);
    if (!held) return failed(Code::internal, held.error());
    auto it = held->find(spec.op);
    if (it != held->end() && folder_digest(it->second) == digest) break;  // the library holds these very files
    std::map<std::string, std::string> paths;
    for (const auto& [name, content] : files) paths[k_specs_prefix + spec.op + "/" + name] = content;
    std::vector<std::string> removed;
    if (it != held->end())
      for (const auto& [name, content] : it->second)
        if (!files.contains(name)) removed.push_back(k_specs_prefix + spec.op + "/" + name);
    std::string title = replaced.empty()             ? fmt::format("Add spec {} v{}", spec.op, spec.version)
                        : same_version               ? fmt::format("Edit spec {} v{} (same meaning)", spec.op, spec.version)
                                                     : fmt::format("Spec {} v{} (replaces {})", spec.op, spec.version, replaced);
    auto one_line = [](std::string s) {
      for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
      return s;
    };
    std::string message = fmt::format(
        "{}\n\n{}\n\nKwb-Spec: {}\nKwb-Spec-Version: {}\nKwb-Spec-Digest: {}\nKwb-Spec-Replaces: {}\nKwb-Added-By: {}\n",
        title, one_line(spec.summary), spec.op, spec.version, spec.digest, replaced.empty() ? "none" : replaced,
        one_line(added_by.empty() ? "unknown" : added_by));
    auto done = m_repo.commit(*head, paths, message, removed);
    if (!done) return failed(Code::internal, done.error());
    if (done->id) {
      commit = *done->id;
      break;
    }
  }

  auto place = materialize_folder(m_root, spec.op, files);
  if (!place) return failed(Code::internal, place.error());
  auto served = spec::load_spec_folder(*place, spec.op);
  if (!served) return failed(Code::internal, served.error());
  auto added = m_catalog.add(std::move(*served), /*replace=*/true);
  if (!added) return failed(Code::internal, added.error());
  SpecAddResult r;
  r.spec = m_catalog.find(spec.op, spec.version);
  if (commit.empty() && same_version) {
    r.code = Code::unchanged;
    return r;
  }
  r.code = Code::added;
  r.commit = commit;
  r.replaced = replaced;
  return r;
}

}  // namespace kwb::library
