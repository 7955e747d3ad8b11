#include "support.hpp"

namespace kwb::analysis::test {
namespace {

TEST(PrecisionDowncast, HalfAccumulatorOnCpu) {
  auto r = run(vector_add("_Float16 acc = 0; for (int64_t i = 0; i < n; ++i) acc += _Float16(a[i]);\nc[0] = float(acc);"));
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "precision-downcast");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_EQ(f->severity, "warning");
  EXPECT_FALSE(r.has_errors());
  EXPECT_NE(f->message.find("_Float16"), std::string::npos) << f->message;
}

TEST(PrecisionDowncast, FloatAccumulatorIsFine) {
  auto r = run(vector_add("float acc = 0; for (int64_t i = 0; i < n; ++i) { acc += a[i]; acc = acc + b[i]; }\n"
                          "c[0] = acc;"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

TEST(PrecisionDowncast, ConversionFeedingAnAccumulation) {
  auto r = run(vector_add("float acc = 0; for (int64_t i = 0; i < n; ++i) acc += float(_Float16(a[i]));\nc[0] = acc;"));
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "precision-downcast");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_NE(f->message.find("conversion"), std::string::npos) << f->message;
}

TEST(PrecisionDowncast, CudaHalfAndBf16Accumulators) {
  auto r = run(R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void k(const float* x, float* y, long long n) {
  __half acc = __float2half(0.f);
  for (long long i = threadIdx.x; i < n; i += blockDim.x) acc += __float2half(x[i]);
  __nv_bfloat16 acc2 = __float2bfloat16(0.f);
  for (long long i = threadIdx.x; i < n; i += blockDim.x) acc2 = __hadd(acc2, __float2bfloat16(x[i]));
  float fine = 0.f;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) fine += x[i];
  y[0] = __half2float(acc) + __bfloat162float(acc2) + fine;
}
)",
               "vector_add", "cuda", "f32", {"k"});
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "precision-downcast"), 2) << dump(r);
  EXPECT_EQ(count(r, "parse"), 0) << dump(r);
}

TEST(PrecisionDowncast, OnlyForF32Variants) {
  // bf16 inputs widened to float and summed in float: the bf16 variant of gemm, no downcast.
  auto r = run(R"(
#include <cuda_bf16.h>
extern "C" __global__ void k(const __nv_bfloat16* a, float* c, long long n) {
  float acc = 0.f;
  for (long long i = 0; i < n; ++i) acc += __bfloat162float(a[i]);
  c[0] = acc;
}
)",
               "gemm", "cuda", "bf16", {"k"});
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

}  // namespace
}  // namespace kwb::analysis::test
