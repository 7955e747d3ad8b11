#pragma once
// The specs a workbench knows (docs/specs.md "Where specs live"), from several folders, and
// growing while the daemon runs (POST /v1/specs). Every spec is kept per (op, version) and never
// freed, so a `const core::Spec*` handed out stays valid as long as the catalog, whatever is added
// later: evaluations keep theirs while a newer version becomes current. Thread-safe.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/spec.hpp"
#include "util/error.hpp"

namespace kwb::spec {

// One source of a catalog: a folder of specs, <dir>/<op>/spec.json, or (dir empty) a list of
// spec folders named apart from their op (the library's, written under the workspace).
struct CatalogSource {
  std::filesystem::path dir;
  bool optional = false;  // a missing or empty source is fine (the library's specs)
  std::vector<std::pair<std::string, std::filesystem::path>> folders;  // (op, folder) when dir is empty
};

class Catalog {
 public:
  enum class Added { added, unchanged, replaced };

  Catalog();
  ~Catalog();
  Catalog(Catalog&&) noexcept;
  Catalog& operator=(Catalog&&) noexcept;

  // Every <dir>/<op>/spec.json (folders without one are skipped; the op must equal its folder's
  // name). Every invalid file is reported, one per line; a folder without specs is an error.
  static util::Result<Catalog> load(const std::filesystem::path& dir);
  // Several sources, highest precedence first (kwb: --specs DIRs, the library, specs-dir). Of one
  // op, every version found is kept and the highest is current; one version found in two places
  // must mean the same (same digest) and is served from the first; a different meaning is an
  // error naming both files. Every error of every source is reported.
  static util::Result<Catalog> load(const std::vector<CatalogSource>& sources);

  // Adds a spec. A new op or version is `added` (a higher version becomes current). The same op
  // and version again: `unchanged` when it means the same (same digest), or `replaced` when
  // `replace` is set (a descriptive edit: the old one stays alive for those holding it); another
  // meaning is an error naming both files.
  util::Result<Added> add(core::Spec spec, bool replace = false);

  // The current (highest) version of `op`, or null.
  const core::Spec* find(std::string_view op) const;
  // That version of `op`, or null.
  const core::Spec* find(std::string_view op, int version) const;
  std::vector<std::string> ops() const;       // sorted
  std::vector<int> versions(std::string_view op) const;  // ascending
  // Increases with every change (added or replaced), for what is derived from the catalog.
  uint64_t generation() const;

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

// <folder>/spec.json whose op must be `op` (errors name the file and field).
util::Result<core::Spec> load_spec_folder(const std::filesystem::path& folder, std::string_view op);

}  // namespace kwb::spec
