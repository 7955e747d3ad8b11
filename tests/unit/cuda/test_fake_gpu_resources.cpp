// The resource diff (docs/verdict.md "Resources") end to end: `kwb serve` on the fake driver
// (fake_driver/fake_libcuda.cpp; real NVRTC compiles both sides, so their compiler facts are
// real) with the shipped library, and a vector_add candidate that holds 48 KiB of static shared
// memory per block against the shipped incumbent, which holds none. Its decision names the lost
// occupancy with the shared-memory limiter, as do the verdict's summary.resources, the
// candidate's comparison part, GET .../diff and `kwb diff`.
#include <httplib.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "../../integration/daemon_support.hpp"
#include "fake_gpus.hpp"
#include "temp_dir.hpp"

namespace {

using namespace kwb::test;

nlohmann::json body_of(const httplib::Result& r) {
  return r ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
}

// vector_add with one bench workload a CPU emulates quickly (as test_fake_gpu_lanes.cpp).
void write_fake_specs(const std::filesystem::path& dir) {
  std::string spec = read_text(source_dir() / "specs/vector_add/spec.json");
  size_t b = spec.find("\"bench\": [");
  size_t e = spec.find("\n    ]", b);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  spec = spec.substr(0, b) + "\"bench\": [\n      {\"name\": \"n4k\", \"params\": {\"n\": 4096}, \"label\": \"small\"}" +
         spec.substr(e);
  std::filesystem::create_directories(dir / "vector_add");
  std::ofstream(dir / "vector_add/spec.json") << spec;
  std::filesystem::copy_file(source_dir() / "specs/vector_add/reference.cpp", dir / "vector_add/reference.cpp",
                             std::filesystem::copy_options::overwrite_existing);
}

// The fake driver runs any kernel named vector_add_f32 as c = a + b; NVRTC compiles this one's
// body, which stages a through 48 KiB of static shared memory (12288 floats): 4 blocks of 256
// threads fit an SM of 228 KiB, against the incumbent's 8.
const char* k_shared_hungry =
    "// kwb:launch vector_add_f32 grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)\n"
    "extern \"C\" __global__ void vector_add_f32(const float* a, const float* b, float* c, long long n) {\n"
    "  __shared__ float staged[12288];\n"
    "  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int k = threadIdx.x; k < 12288; k += blockDim.x) staged[k] = i < n ? a[i] : 0.f;\n"
    "  __syncthreads();\n"
    "  if (i < n) c[i] = staged[(threadIdx.x * 7) % 12288] * 0.f + a[i] + b[i];\n"
    "}\n";

class FakeGpuResources : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef KWB_TEST_FAKE_LIBCUDA
    GTEST_SKIP() << "no fake driver in this build (CUDA toolkit not found)";
#else
    auto driver = FakeGpus::make(m_dir / "driver", 1);
    write_fake_specs(m_dir / "specs");
    ::setenv("KWB_CUDA_DRIVER", driver.c_str(), 1);
    ::setenv("KWB_LIBCLANG", "off", 1);
    std::string error;
    ASSERT_TRUE(m_daemon.start({"--no-auth", "--time-budget-ms", "20", "--decide-budget-ms", "100", "--specs-dir",
                                (m_dir / "specs").string(), "--kernels-dir", (source_dir() / "kernels").string()},
                               m_dir / "ws", &error))
        << error;
#endif
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", m_daemon.port());
    c.set_read_timeout(300, 0);
    return c;
  }
  TempDir m_dir;
  DaemonProcess m_daemon;
};

TEST_F(FakeGpuResources, MoreSharedMemoryThanTheIncumbentIsALossNamedInTheDecisionAndInKwbDiff) {
  auto c = client();
  auto posted = c.Post("/v1/candidates",
                       nlohmann::json{{"op", "vector_add"}, {"backend", "cuda"}, {"source", k_shared_hungry}}.dump(),
                       "application/json");
  ASSERT_TRUE(posted && posted->status == 202) << (posted ? posted->body : "no reply");
  const std::string id = body_of(posted)["id"];
  // The event stream replays every event and ends once the candidate is done and decided.
  auto ev = c.Get("/v1/candidates/" + id + "/events", [](const char*, size_t) { return true; });
  ASSERT_TRUE(ev) << httplib::to_string(ev.error());
  const auto cand = body_of(c.Get("/v1/candidates/" + id));
  ASSERT_TRUE(cand.is_object());
  const auto& v = cand["verdict"];
  ASSERT_EQ(v["status"], "accepted") << v["reason"] << "\n" << m_daemon.log();
  ASSERT_EQ(cand["comparison"]["state"], "done") << cand["comparison"].dump();

  const auto& res = v["summary"]["resources"];
  ASSERT_TRUE(res.is_object()) << v["summary"].dump();
  ASSERT_FALSE(res["rows"].empty());
  const auto& row = res["rows"][0];
  EXPECT_EQ(row["workload"], "n4k");
  EXPECT_EQ(row["candidate"]["static_smem_bytes"], 49152) << row.dump();
  EXPECT_EQ(row["incumbent"]["static_smem_bytes"], 0) << row.dump();
  EXPECT_EQ(row["candidate"]["occupancy"]["limited_by"], "shared_memory") << row.dump();
  ASSERT_EQ(res["losses"].size(), 1u) << res.dump();
  const std::string loss = res["losses"][0];
  EXPECT_EQ(loss.rfind("vector_add_f32: occupancy ", 0), 0u) << loss;
  EXPECT_NE(loss.find(" → 4 blocks/SM"), std::string::npos) << loss;
  EXPECT_NE(loss.find("limiter: shared memory, 0 → 49152 B per block) on n4k"), std::string::npos) << loss;

  // The decision says so in words, and the candidate's comparison part carries the same diff.
  const std::string reason = v["summary"]["decision"]["reason"];
  EXPECT_NE(reason.find("resources lost against the incumbent: " + loss), std::string::npos) << reason;
  EXPECT_EQ(cand["comparison"]["resources"], res);

  // GET .../diff and `kwb diff`.
  const auto diff = body_of(c.Get("/v1/candidates/" + id + "/diff"));
  EXPECT_EQ(diff["resources"], res) << diff.dump();
  auto out = run_command((bin_dir() / "kwb").string() + " diff " + id + " --server " + m_daemon.url());
  EXPECT_EQ(out.exit_code, 0) << out.out;
  EXPECT_NE(out.out.find("candidate  vector_add_f32 [default]"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("incumbent  vector_add_f32 [BLOCK="), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("resource loss: " + loss), std::string::npos) << out.out;
}

}  // namespace
