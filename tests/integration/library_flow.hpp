#pragma once
// The library loop's test rig (test_library_flow.cpp, test_ci_promote.cpp): a daemon on a
// library seeded with a deliberately slow vector_add and the shipped spec's light bench
// workloads (light_bench_specs.hpp), and the calls the tests make of it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "daemon_support.hpp"
#include "light_bench_specs.hpp"

namespace kwb::test {

// The test incumbent: deliberately ~40x slow (32 volatile round trips per element), so a
// winner's margin dwarfs any timing noise of a loaded two-core CI machine. (With 8, ~10x, a
// memory-bound winner timed beside other tests read n1M 2.73x [0.815, 9.01] in a full ctest -j2:
// a correct refusal to decide, and a failed test.)
inline constexpr const char* k_slow = R"(// vector_add, CPU: deliberately slow, the test incumbent.
#include <cstdint>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    volatile float x = a[i];
    for (int r = 0; r < 32; ++r) x = x;
    c[i] = x + b[i];
  }
}
)";

inline std::string fast(const std::string& tag) {
  return "// " + tag + "\n#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* __restrict a, "
         "const float* __restrict b, float* __restrict c, int64_t n) { for (int64_t i = 0; i < n; ++i) c[i] = a[i] + "
         "b[i]; }\n";
}

// A kernels/ folder whose only kernel is the slow vector_add.
inline std::filesystem::path slow_kernels(const std::filesystem::path& root) {
  auto dir = root / "kernels" / "vector_add" / "cpu";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scalar.cpp") << k_slow;
  std::ofstream(dir / "scalar.json") << R"({"op": "vector_add", "variant": "f32", "backend": "cpu",
    "entry": "kwb_vector_add_f32", "summary": "slow test incumbent", "author": "test"})";
  return root / "kernels";
}

inline nlohmann::json body_of(const httplib::Result& r) {
  return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
}

class LibraryFlow : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kwb-library-flow-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    m_root = tmpl;
    m_kernels = slow_kernels(m_root);
    m_specs = light_vector_add_specs(m_root);
    std::string error;
    ASSERT_TRUE(m_daemon.start({"--no-auth", "--time-budget-ms", "150", "--kernels-dir", m_kernels.string(),
                                "--specs-dir", m_specs.string()},
                               m_root / "ws", &error))
        << error;
  }
  void TearDown() override {
    m_daemon.stop();
    std::error_code ec;
    std::filesystem::remove_all(m_root, ec);
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", m_daemon.port());
    c.set_read_timeout(180, 0);
    return c;
  }
  std::string submit(const std::string& source, const std::string& note = "") {
    auto r = client().Post("/v1/candidates", nlohmann::json{{"op", "vector_add"}, {"source", source}, {"note", note}}.dump(),
                           "application/json");
    if (!r || r->status != 202) return "";
    return body_of(r)["id"];
  }
  nlohmann::json verdict(const std::string& id) {
    for (int i = 0; i < 10; ++i) {
      auto r = client().Get("/v1/candidates/" + id + "?wait=60");
      auto j = body_of(r);
      if (j.is_object() && j["state"] == "done") return j["verdict"];
    }
    return {};
  }
  httplib::Result promote(const std::string& id) { return client().Post("/v1/candidates/" + id + "/promote", "", "application/json"); }

  std::filesystem::path m_root, m_kernels, m_specs;
  DaemonProcess m_daemon;
};

}  // namespace kwb::test
