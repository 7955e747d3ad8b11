// specs/<op>/ of the library repository, read from commits and written into the workspace.
#include "library/spec_folders.hpp"

#include <fmt/format.h>

#include "util/fs.hpp"
#include "util/hash.hpp"

namespace kwb::library {

namespace fs = std::filesystem;

util::Result<std::map<std::string, FolderFiles>> spec_folders(Repository& repo, const std::string& commit) {
  auto files = repo.files(commit);
  if (!files) return std::unexpected(files.error());
  std::map<std::string, FolderFiles> out;
  for (auto& [path, content] : *files) {
    if (!path.starts_with(k_specs_prefix)) continue;
    std::string rest = path.substr(std::string_view(k_specs_prefix).size());
    auto slash = rest.find('/');
    if (slash == std::string::npos || rest.find('/', slash + 1) != std::string::npos) continue;  // not <op>/<file>
    out[rest.substr(0, slash)][rest.substr(slash + 1)] = std::move(content);
  }
  return out;
}

std::string folder_digest(const FolderFiles& files) {
  std::string text = "kwb.spec.folder.v1\n";
  for (const auto& [name, content] : files) text += fmt::format("{}\n{}\n{}\n", name, content.size(), content);
  return util::sha256_hex(text);
}

util::Result<fs::path> materialize_folder(const fs::path& root, const std::string& op, const FolderFiles& files) {
  const fs::path place = root / op / folder_digest(files).substr(0, 16);
  std::error_code ec;
  if (fs::is_directory(place, ec)) return place;
  auto staged = util::make_unique_dir(root / op, ".staging-");
  if (!staged) return std::unexpected(staged.error());
  for (const auto& [name, content] : files)
    if (auto w = util::write_file_atomic(*staged / name, content); !w) {
      fs::remove_all(*staged, ec);
      return std::unexpected(w.error());
    }
  fs::rename(*staged, place, ec);
  if (ec) {  // another process put the same folder there first: it holds the same files
    std::error_code ignored;
    fs::remove_all(*staged, ignored);
    if (!fs::is_directory(place, ignored)) return util::fail(place.string(), "cannot write the spec folder: " + ec.message());
  }
  return place;
}

util::Result<std::vector<std::pair<std::string, fs::path>>> materialize_specs(Repository& repo, const fs::path& root) {
  auto folders = spec_folders(repo);
  if (!folders) return std::unexpected(folders.error());
  std::vector<std::pair<std::string, fs::path>> out;
  for (const auto& [op, files] : *folders) {
    auto place = materialize_folder(root, op, files);
    if (!place) return std::unexpected(place.error());
    out.emplace_back(op, *place);
  }
  return out;
}

}  // namespace kwb::library
