// `cuda` sources are parsed against the NVRTC prelude (cuda_prelude.hpp): the device API NVRTC
// kernels use parses with it, the rules see through it as through clang's CUDA wrapper, and what
// it does not fit goes to the wrapper (docs/analysis.md, "Parse set-up").
#include "support.hpp"

namespace kwb::analysis::test {
namespace {

core::LaunchArg tensor(const std::string& name, int index) { return {core::LaunchArg::Kind::tensor, name, index}; }
core::LaunchArg param(const std::string& name, int index) { return {core::LaunchArg::Kind::param, name, index}; }

Report cuda(const std::string& source, const std::string& op = "vector_add", const std::string& variant = "f32") {
  return run(source, op, "cuda", variant, {"k"});
}

TEST(CudaPrelude, TheDeviceApiOfNvrtcKernelsParses) {
  auto r = cuda(R"(
struct P { float v; };
__device__ __forceinline__ float math(float x) {
  return rsqrtf(x) + __expf(x) + expf(x) + float(exp(double(x))) + sqrt(x) + abs(x) + fmaxf(x, 1.f) + fminf(x, 2.f) +
         __fdividef(x, 2.f) + __saturatef(x) + log1pf(x) + tanhf(x) + erff(x) + powf(x, 2.f) + __powf(x, 2.f) +
         floorf(x) + roundf(x) + copysignf(x, 1.f) + __frcp_rn(x) + __fmaf_rn(x, x, x) + fmaf(x, x, x) + __sinf(x) +
         exp2f(x) + float(isnan(x)) + float(isinf(x)) + float(signbit(x)) + max(1.f, x) + min(x, 2.f);
}
extern "C" __global__ void __launch_bounds__(256, 2) k(const float* __restrict__ a, float* __restrict__ c,
                                                         long long n, unsigned char* ws) {
  auto t = threadIdx;  // a uint3 in NVRTC (clang's wrapper makes it a non-copyable builtin)
  dim3 d = blockDim;
  __shared__ __align__(16) float s[32];
  extern __shared__ float dyn[];
  unsigned lane = t.x % warpSize;
  float v = __ldg(a + lane) + __ldcg(a) + __ldcs(a) + math(a[0]);
  float4 q = __ldg(reinterpret_cast<const float4*>(a));
  q = make_float4(q.x, float(d.x), float(gridDim.x), float(blockIdx.y));
  v += __shfl_down_sync(0xffffffffu, v, 1) + __shfl_xor_sync(0xffffffffu, v, 1) + __shfl_up_sync(0xffffffffu, v, 1);
  unsigned bal = __ballot_sync(__activemask(), v > 0);
  bal += __popc(bal) + __ffs(int(bal)) + __clz(int(bal)) + __brev(bal) + __byte_perm(bal, 0, 0) +
         __funnelshift_l(bal, bal, 3) + __reduce_add_sync(0xffffffffu, 1u) + __match_any_sync(0xffffffffu, 1);
  __syncwarp();
  __syncthreads();
  __threadfence();
  int cnt = __syncthreads_count(1) + __syncthreads_or(1);
  unsigned* u = reinterpret_cast<unsigned*>(ws);
  atomicAdd(u, 1u);
  atomicAdd(c, 1.f);
  atomicAdd(reinterpret_cast<double*>(ws), 1.0);
  atomicCAS(u, 0u, 1u);
  atomicExch(u, 2u);
  atomicMax(u, 3u);
  atomicAdd(reinterpret_cast<unsigned long long*>(ws), 1ull);
  int mx = max(1, 2) + min(3, 4) + int(max(1ll, n)) + int(umin(1u, 2u));
  int bits = __float_as_int(v) + __float2int_rn(v) + int(__double_as_longlong(1.0));
  (void)__cvta_generic_to_shared(s);
  assert(n > 0);
  if (n < 0) printf("%d\n", mx);
  if (n == 5) __trap();
  P* p = new (dyn) P{1.f};
  __nanosleep(10);
  __stcg(c + 1, v);
  c[0] = v + float(cnt + mx + bits) + q.x + s[0] + p->v + float(bal);
}
)");
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
  EXPECT_EQ(r.parsed_with, "nvrtc-prelude");
}

TEST(CudaPrelude, HalfPrecisionAndWmmaHeaders) {
  auto r = cuda(R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
extern "C" __global__ void k(const __half* a, __nv_bfloat16* b, float* c) {
  __half h = __hadd(__float2half(1.f), a[0]);
  __half2 h2 = __hmul2(__halves2half2(h, h), __halves2half2(h, h));
  __nv_bfloat16 x = __float2bfloat16(2.f);
  b[1] = x * x + b[0];
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> acc;
  nvcuda::wmma::fill_fragment(acc, 0.f);
  nvcuda::wmma::store_matrix_sync(c, acc, 16, nvcuda::wmma::mem_row_major);
  c[0] = __bfloat162float(x) + __half2float(h) + __low2float(h2);
}
)");
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
  EXPECT_EQ(r.parsed_with, "nvrtc-prelude");
}

TEST(CudaPrelude, RulesSeeThroughIt) {
  auto r = cuda(R"(
__device__ int g_calls;
extern "C" __global__ void k(float* c) {
  atomicAdd(&g_calls, 1);
  c[0] = float(clock64()) + float(clock());
}
)");
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(r.parsed_with, "nvrtc-prelude");
  EXPECT_EQ(count(r, "mutable-global-state"), 1) << dump(r);
  EXPECT_EQ(count(r, "forbidden-call"), 2) << dump(r);
  EXPECT_EQ(count(r, "parse"), 0) << dump(r);
}

TEST(CudaPrelude, Bf16KernelParametersAreCheckedExactly) {
  use_test_cache_dir();
  const auto& s = spec("gemm");
  std::string head = "#include <cuda_bf16.h>\nextern \"C\" __global__ void k(";
  std::string tail = ", float* c, long long m, long long n, long long k) {}\n";
  auto with = [&](const std::string& params) {
    Request req{s, *s.find_variant("bf16"), "cuda", head + params + tail, "k.cu", {}, {}};
    req.launches = {{"k", {tensor("a", 0), tensor("b", 1), tensor("c", 2), param("m", 0), param("n", 1), param("k", 2)}, 1}};
    return analyze(req);
  };
  auto ok = with("const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* b");
  KWB_REQUIRE_AVAILABLE(ok);
  EXPECT_TRUE(ok.findings.empty()) << dump(ok);
  EXPECT_EQ(ok.parsed_with, "nvrtc-prelude");
  auto half = with("const __nv_bfloat16* a, const unsigned short* b");
  ASSERT_EQ(count(half, "entry-signature"), 1) << dump(half);
  EXPECT_NE(find(half, "entry-signature")->message.find("expected const __nv_bfloat16*"), std::string::npos)
      << dump(half);
}

TEST(CudaPrelude, OtherHeadersAndWhatItDoesNotParseGoToTheWrapper) {
  // cooperative_groups expects a host compiler's standard library: parsed with the wrapper.
  auto groups = cuda(R"(
#include <cooperative_groups.h>
extern "C" __global__ void k(float* c) { cooperative_groups::this_thread_block().sync(); c[0] = 1.f; }
)");
  KWB_REQUIRE_AVAILABLE(groups);
  EXPECT_TRUE(groups.findings.empty()) << dump(groups);
  EXPECT_EQ(groups.parsed_with, "cuda-wrapper");
  // std::sqrt without <cmath> is visible only through the wrapper's includes: it decides.
  auto std_math = cuda("extern \"C\" __global__ void k(float* c) { c[0] = std::sqrt(c[1]); }\n");
  EXPECT_TRUE(std_math.findings.empty()) << dump(std_math);
  EXPECT_EQ(std_math.parsed_with, "cuda-wrapper");
  // Both fail: the prelude's errors (NVRTC's view) are reported, not the wrapper's.
  auto broken = cuda("extern \"C\" __global__ void k(float* c) { auto t = threadIdx; c[0] = undeclared; }\n");
  ASSERT_EQ(count(broken, "parse"), 1) << dump(broken);
  EXPECT_NE(find(broken, "parse")->message.find("undeclared"), std::string::npos) << dump(broken);
  EXPECT_EQ(broken.parsed_with, "nvrtc-prelude");
}

}  // namespace
}  // namespace kwb::analysis::test
