// kwb-expect: op=vector_add status=accepted reason="correct on"
// Correct, but loads its inputs with an L2 evict_last policy so that they could stay in L2 across
// the runner's flush between timed samples (bench n1M's 8 MiB of inputs fit in L2). The compiler
// reports the policy and every sample then starts with persisting lines reset: the verdict says
// so (rule l2-cache-policy) and its time is not below an honest kernel's (test_l2_policies.cpp).
// kwb:launch vadd grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
__device__ __forceinline__ float load_kept(const float* p, unsigned long long policy) {
  float v;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(policy));
  return v;
}

extern "C" __global__ void vadd(const float* a, const float* b, float* c, long long n) {
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = load_kept(a + i, policy) + load_kept(b + i, policy);
}
