// A source file named in spec.json (baselines, the GPU reference): a .cu file inside the spec's
// folder, read into the spec so that it travels with it.
#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "spec/loader_parts.hpp"
#include "util/fs.hpp"

namespace kwb::spec::detail {

namespace {

namespace fs = std::filesystem;

// `true` when `p` lies inside `dir` (both canonical).
bool is_inside(const fs::path& p, const fs::path& dir) {
  auto d = dir.begin(), q = p.begin();
  for (; d != dir.end(); ++d, ++q)
    if (q == p.end() || *q != *d) return false;
  return q != p.end();
}

}  // namespace

bool read_source_file(Reader& r, const Json& j, const std::string& path, const core::Spec& spec,
                      std::string_view what, std::string& file, std::string& source) {
  if (!r.non_empty_string(j, path, file)) return false;
  const fs::path rel(file);
  if (rel.is_absolute() || file.starts_with("/"))
    return r.fail(path, fmt::format("\"{}\" is absolute: give a path relative to the spec's folder", file));
  for (const auto& part : rel)
    if (part == "..")
      return r.fail(path, fmt::format("\"{}\" leaves the spec's folder: '..' is not allowed", file));
  if (rel.extension() != ".cu")
    return r.fail(path, fmt::format("\"{}\": {} must be a .cu file", file, what));
  const fs::path dir = spec.file.parent_path().empty() ? fs::path(".") : spec.file.parent_path();
  const fs::path full = dir / rel;
  std::error_code ec;
  if (!fs::exists(full, ec))
    return r.fail(path, fmt::format("\"{}\": no such file next to the spec ({})", file, full.string()));
  if (!fs::is_regular_file(full, ec))
    return r.fail(path, fmt::format("\"{}\" is not a regular file ({})", file, full.string()));
  // A symlink must not lead out of the folder either.
  const fs::path real = fs::canonical(full, ec);
  const fs::path real_dir = ec ? fs::path() : fs::canonical(dir, ec);
  if (ec) return r.fail(path, fmt::format("\"{}\": cannot resolve {}: {}", file, full.string(), ec.message()));
  if (!is_inside(real, real_dir))
    return r.fail(path, fmt::format("\"{}\" resolves to {}, outside the spec's folder", file, real.string()));
  auto text = util::read_file(full);
  if (!text) return r.fail(path, fmt::format("\"{}\": {}", file, text.error().what()));
  if (text->empty()) return r.fail(path, fmt::format("\"{}\" is empty", file));
  source = std::move(*text);
  return true;
}
}  // namespace kwb::spec::detail
