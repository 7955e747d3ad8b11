#include "support.hpp"

namespace kwb::analysis::test {
namespace {

const std::string k_headers = "#include <algorithm>\n#include <array>\n#include <atomic>\n#include <cstring>\n"
                              "#include <vector>\n";

void expect_written(const std::string& prelude, const std::string& body, const std::string& var) {
  auto r = run(vector_add(body, k_headers + prelude));
  if (!r.available) GTEST_SKIP() << r.unavailable_reason;
  const auto* f = find(r, "mutable-global-state");
  ASSERT_NE(f, nullptr) << prelude << "\n" << body << "\n" << dump(r);
  EXPECT_EQ(f->severity, "error");
  EXPECT_NE(f->message.find("'" + var + "'"), std::string::npos) << f->message;
  EXPECT_EQ(count(r, "parse"), 0) << dump(r);
}

void expect_clean(const std::string& prelude, const std::string& body) {
  auto r = run(vector_add(body, k_headers + prelude));
  if (!r.available) GTEST_SKIP() << r.unavailable_reason;
  EXPECT_TRUE(r.findings.empty()) << prelude << "\n" << body << "\n" << dump(r);
}

TEST(MutableGlobalState, CacheKeyedByPointer) {
  expect_written("static const float* last_a = nullptr;", "if (a == last_a) return; last_a = a;", "last_a");
}

TEST(MutableGlobalState, Writes) {
  expect_written("static int calls = 0;", "++calls;", "calls");
  expect_written("static int calls = 0;", "calls += 2;", "calls");
  expect_written("int calls = 0;", "calls = int(n);", "calls");
  expect_written("namespace { float cache[64]; }", "cache[0] = a[0];", "cache");
  expect_written("", "static float cache[64]; cache[n % 64] = a[0];", "cache");
  expect_written("", "thread_local int64_t seen; seen = n;", "seen");
  expect_written("struct Memo { int64_t n; float v; }; static Memo memo;", "memo.n = n;", "memo");
  expect_written("static int calls = 0;", "int& r = calls; r = 1;", "calls");
  expect_written("static float cache[64];", "float* p = cache; p[0] = 1;", "cache");
  expect_written("static float cache[64];", "std::memcpy(cache, a, 4);", "cache");
  expect_written("static float cache[64];", "std::fill(cache, cache + 64, 0.f);", "cache");
  expect_written("static std::vector<float> saved;", "saved.assign(a, a + n);", "saved");
  expect_written("static std::vector<float> saved;", "saved[0] = a[0];", "saved");
  expect_written("static std::atomic<int> calls;", "calls.fetch_add(1);", "calls");
  expect_written("static std::atomic<int> calls;", "calls++;", "calls");
  expect_written("struct Box { static int hits; }; int Box::hits = 0;", "Box::hits++;", "hits");
  // Memory reached through a static pointer persists too, even when the pointer is const.
  expect_written("static float* const store = new float[64];", "store[0] = a[0];", "store");
  expect_written("static float* store = nullptr;", "*store = a[0];", "store");
}

TEST(MutableGlobalState, ReadsAreFine) {
  expect_clean("static const float k_table[4] = {1, 2, 3, 4};", "c[0] = a[0] * k_table[n % 4];");
  expect_clean("constexpr int k_lanes = 8;", "for (int64_t i = 0; i < n; i += k_lanes) c[i] = a[i];");
  expect_clean("static const std::array<float, 2> k_w = {0.5f, 2.f};", "c[0] = k_w[0] * a[0];");
  expect_clean("static int scale = 2;", "c[0] = a[0] * scale + b[0];");
  expect_clean("static float cache[4];", "c[0] = cache[0]; const float* p = cache; c[1] = p[1];");
  expect_clean("static std::vector<float> saved(4);", "c[0] = saved.size() > 0 ? saved[0] : 0.f;");
  expect_clean("static const float* const k_ptr = nullptr;", "if (k_ptr) c[0] = k_ptr[0];");
  // Locals and parameters are not global state.
  expect_clean("", "float acc[8] = {}; acc[0] += a[0]; int64_t m = n; m++; c[0] = acc[0] + float(m);");
}

TEST(MutableGlobalState, InitialisersRunOnce) {
  expect_clean("static int k_init = [] { return 3; }();\nstatic float table[4] = {1, 2, 3, 4};",
               "c[0] = table[k_init];");
}

TEST(MutableGlobalState, DeviceGlobalsInCuda) {
  auto r = run(R"(
__device__ int counter;
__constant__ float k_coeff[4];
extern "C" __global__ void k(float* c) {
  __shared__ float tile[32];
  tile[threadIdx.x] = k_coeff[0];
  atomicAdd(&counter, 1);
  c[0] = tile[0];
}
)",
               "vector_add", "cuda", "f32", {"k"});
  KWB_REQUIRE_AVAILABLE(r);
  ASSERT_EQ(count(r, "mutable-global-state"), 1) << dump(r);
  EXPECT_NE(find(r, "mutable-global-state")->message.find("__device__ global 'counter'"), std::string::npos);
}

}  // namespace
}  // namespace kwb::analysis::test
