// meaning_digest: canonical spec.json minus its descriptive text, plus the reference sources.
#include "spec/digest.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "spec/json_reader.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

namespace kwb::spec {

namespace fs = std::filesystem;

bool is_reference_source(std::string_view name) { return name.starts_with("reference"); }

namespace {

void erase_in_each(nlohmann::json& parent, const char* list, const char* key) {
  if (!parent.is_object() || !parent.contains(list) || !parent[list].is_array()) return;
  for (auto& item : parent[list])
    if (item.is_object()) item.erase(key);
}

}  // namespace

util::Result<std::string> meaning_digest(std::string_view spec_json, const std::map<std::string, std::string>& references,
                                         const std::string& file) {
  auto doc = detail::parse_json(spec_json, file);
  if (!doc) return std::unexpected(doc.error());
  // nlohmann::json (not ordered_json) sorts object keys: the canonical form ignores key order,
  // whitespace, comments and number spelling (1e-5 == 0.00001).
  nlohmann::json j = nlohmann::json::parse(doc->dump());
  if (j.is_object()) {
    j.erase("summary");
    j.erase("baselines");  // compared against, never a judge of correctness
    j.erase("contract");   // derived (GET /v1/specs/{op} output), ignored when read
    erase_in_each(j, "distributions", "note");
    if (j.contains("workloads") && j["workloads"].is_object()) {
      erase_in_each(j["workloads"], "test", "label");
      erase_in_each(j["workloads"], "bench", "label");
    }
  }
  std::string text = "kwb.spec.meaning.v1\n" + j.dump() + "\n";
  for (const auto& [name, content] : references) text += fmt::format("{}\n{}\n{}\n", name, content.size(), content);
  return util::sha256_hex(text);
}

util::Result<std::map<std::string, std::string>> read_reference_sources(const fs::path& folder) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_reference_source(name) || !it->is_regular_file(ec)) continue;
    auto text = util::read_file(it->path());
    if (!text) return std::unexpected(text.error());
    out[name] = std::move(*text);
  }
  if (ec) return util::fail(folder.string(), "cannot list: " + ec.message());
  return out;
}

}  // namespace kwb::spec
