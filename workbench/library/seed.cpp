#include "library/seed.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/backend.hpp"
#include "library/dispatch.hpp"
#include "util/fs.hpp"

namespace kwb::library {

namespace fs = std::filesystem;

util::Result<std::map<std::string, std::string>> seed_files(const fs::path& kernels_dir) {
  std::error_code ec;
  if (!fs::is_directory(kernels_dir, ec)) return util::fail(kernels_dir.string(), "not a directory of kernels");
  std::map<std::string, std::string> files;
  Dispatch dispatch;
  std::vector<fs::path> metas;  // in path order, so that an error names the same file every time
  for (auto it = fs::recursive_directory_iterator(kernels_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".json") metas.push_back(it->path());
  if (ec) return util::fail(kernels_dir.string(), ec.message());
  std::sort(metas.begin(), metas.end());
  for (const fs::path& meta_path : metas) {
    std::string rel_meta = fs::relative(meta_path, kernels_dir).generic_string();
    auto meta_text = util::read_file(meta_path);
    if (!meta_text) return std::unexpected(meta_text.error());
    auto meta = nlohmann::json::parse(*meta_text, nullptr, false, true);
    if (meta.is_discarded() || !meta.is_object()) return util::fail(meta_path.string(), "not a JSON object");
    DispatchEntry e;
    for (auto [field, name] : std::initializer_list<std::pair<std::string DispatchEntry::*, const char*>>{
             {&DispatchEntry::op, "op"}, {&DispatchEntry::variant, "variant"}, {&DispatchEntry::backend, "backend"}}) {
      if (!meta.contains(name) || !meta[name].is_string() || meta[name].get<std::string>().empty())
        return util::fail(meta_path.string() + ": " + name, "missing or not a string");
      e.*field = meta[name].get<std::string>();
    }
    const auto form = core::parse_backend(e.backend);
    if (!form)
      return util::fail(meta_path.string() + ": backend", "'" + e.backend + "' is not one of " + core::backend_list());
    if (*form == core::Backend::cpu) {
      if (!meta.contains("entry") || !meta["entry"].is_string())
        return util::fail(meta_path.string() + ": entry", "a cpu kernel names its exported symbol");
      e.entry = meta["entry"].get<std::string>();
    }
    fs::path source = meta_path;
    source.replace_extension(core::source_extension(*form));
    auto text = util::read_file(source);
    if (!text) return util::fail(meta_path.string(), "no kernel source " + source.filename().string() + " beside it");
    e.kernel = fs::relative(source, kernels_dir).generic_string();
    if (meta.contains("region")) {  // docs/library.md "Shape regions"
      auto region = parse_region(meta["region"], meta_path.string() + ": region");
      if (!region) return std::unexpected(region.error());
      e.region = std::move(*region);
    }
    for (const auto& other : dispatch.entries) {
      if (other.op != e.op || other.variant != e.variant || other.backend != e.backend || !other.region.overlaps(e.region))
        continue;
      if (other.region.whole() && e.region.whole())
        return util::fail(meta_path.string(), "a second seed kernel for " + e.op + "/" + e.variant + "/" + e.backend +
                                                  " (the first is " + other.kernel + ")");
      return util::fail(meta_path.string() + ": region",
                        "(" + e.region.text() + ") overlaps the region of " + other.kernel + " (" + other.region.text() +
                            "): the seed kernels of one op/variant/backend must hold disjoint regions");
    }
    files[e.kernel] = std::move(*text);
    files[rel_meta] = std::move(*meta_text);
    dispatch.upsert(std::move(e));
  }
  files["dispatch.json"] = dispatch_text(dispatch);
  return files;
}

}  // namespace kwb::library
