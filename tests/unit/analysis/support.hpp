#pragma once
// Helpers for the analysis tests: specs from the source tree, one call to analyze a snippet, and
// lookups of findings by rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "analysis/analyzer.hpp"
#include "spec/loader.hpp"

namespace kwb::analysis::test {

inline const core::Spec& spec(const std::string& op) {
  static std::map<std::string, core::Spec> specs;
  auto it = specs.find(op);
  if (it == specs.end()) {
    auto loaded = spec::load_spec(std::filesystem::path(KWB_TEST_SOURCE_DIR) / "specs" / op / "spec.json");
    if (!loaded) throw std::runtime_error(loaded.error().what());
    it = specs.emplace(op, std::move(*loaded)).first;
  }
  return it->second;
}

// The worker built beside the tests, and PCHs kept in the build tree so that re-configurations
// (and re-runs) do not rebuild them.
inline void use_test_cache_dir() {
  static const bool once = [] {
    set_worker_path(std::filesystem::path(KWB_TEST_BIN_DIR) / "kwb-analyzer");
    set_cache_dir(std::filesystem::path(KWB_TEST_BIN_DIR) / ".." / "analysis-test-cache");
    return true;
  }();
  (void)once;
}

inline Report run(const std::string& source, const std::string& op = "vector_add", const std::string& backend = "cpu",
                  const std::string& variant = "f32", std::vector<std::string> kernels = {},
                  std::vector<std::string> flags = {}) {
  use_test_cache_dir();
  const auto& s = spec(op);
  const auto* v = s.find_variant(variant);
  if (!v) throw std::runtime_error("no variant " + variant);
  return analyze(Request{s, *v, backend, source, backend == "cpu" ? "k.cpp" : "k.cu", std::move(kernels),
                         std::move(flags)});
}

inline int count(const Report& r, const std::string& rule) {
  int n = 0;
  for (const auto& f : r.findings) n += f.rule == rule;
  return n;
}

inline const core::Diagnostic* find(const Report& r, const std::string& rule) {
  for (const auto& f : r.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

inline std::string dump(const Report& r) {
  std::string s = r.available ? "" : "unavailable: " + r.unavailable_reason + "\n";
  for (const auto& f : r.findings) s += format_finding(f) + " [" + f.severity + "]\n";
  return s;
}

// The CPU entry of vector_add with a body; `prelude` goes before it.
inline std::string vector_add(const std::string& body, const std::string& prelude = "") {
  return "#include <cstdint>\n" + prelude +
         "\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {\n" + body +
         "\n}\n";
}

#define KWB_REQUIRE_AVAILABLE(report)                                                   \
  do {                                                                                  \
    if (!(report).available) GTEST_SKIP() << (report).unavailable_reason;               \
  } while (0)

}  // namespace kwb::analysis::test
