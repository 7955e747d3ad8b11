#pragma once
// A copy of the shipped vector_add spec whose CPU bench workloads are n1M and n2M instead of n1M
// and n16M, for tests about the daemon and the library (crash recovery, promotion, ci promote)
// rather than about timing: everything else (reference, tolerances, distributions, test
// workloads, drawn shapes) is the shipped spec's. On the 2-core CI machine the 16M-element
// workload (192 MiB moved; inputs drawn, checked against the reference and flushed per call)
// was most of each evaluation: ~7 s of benchmark and ~10 s of decide stage per candidate, and
// a minute with a 10x slow incumbent under load. n2M keeps every call of a 10x slow incumbent
// well above the scheduling noise of a loaded machine (n256K did not: docs/benchmarks/ci.md).
// Pass the returned folder as --specs-dir.
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "support.hpp"

namespace kwb::test {

inline std::filesystem::path light_vector_add_specs(const std::filesystem::path& root) {
  const auto shipped = source_dir() / "specs" / "vector_add";
  auto spec = nlohmann::json::parse(read_text(shipped / "spec.json"), nullptr, false, /*ignore_comments=*/true);
  if (!spec.is_object()) throw std::runtime_error((shipped / "spec.json").string() + " does not parse");
  bool replaced = false;
  for (auto& w : spec["workloads"]["bench"])
    if (w.value("name", "") == "n16M") {
      w = {{"name", "n2M"}, {"params", {{"n", 2097152}}}, {"label", "2M elements: 24 MiB moved (tests: light)"}};
      replaced = true;
    }
  if (!replaced) throw std::runtime_error((shipped / "spec.json").string() + " has no bench workload n16M to replace");
  auto dir = root / "specs" / "vector_add";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "spec.json") << spec.dump(2) << "\n";
  std::filesystem::copy_file(shipped / "reference.cpp", dir / "reference.cpp",
                             std::filesystem::copy_options::overwrite_existing);
  return root / "specs";
}

}  // namespace kwb::test
