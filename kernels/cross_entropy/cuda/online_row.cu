// kwb:launch cross_entropy_bf16 grid=(rows) block=(BLOCK) args=(logits, labels, loss, rows, vocab, label_smoothing)
// kwb:tune BLOCK=256,512,1024
// One block per row, one pass over the row's logits in global memory: each thread keeps an online
// softmax state (running max m, sum of exp(x - m) rescaled when m grows, and the sum of the
// logits for label smoothing) over 16-byte loads of 8 bf16 (a scalar head up to the first 16-byte
// boundary and a scalar tail), then the states are merged by warp shuffles and across warps.
// loss = (1 - s) * (lse - x[y]) + s * (lse - sum_x / vocab), lse = m + log(sum).
#include <cuda_bf16.h>

#define LOG2E 1.4426950408889634f
#define NEG_INF __int_as_float(0xff800000)  // -inf (NVRTC has no <cmath> INFINITY)

struct Softmax {
  float m, s, sx;  // running max, sum of exp(x - m), sum of x
};

__device__ __forceinline__ void add_one(Softmax& a, float v) {
  if (v > a.m) {
    a.s *= exp2f((a.m - v) * LOG2E);
    a.m = v;
  }
  a.s += exp2f((v - a.m) * LOG2E);
  a.sx += v;
}

__device__ __forceinline__ void add_eight(Softmax& a, uint4 q) {
  const unsigned w[4] = {q.x, q.y, q.z, q.w};
  float f[8];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(w[i] << 16);
    f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
  }
  float hi = f[0];
#pragma unroll
  for (int i = 1; i < 8; ++i) hi = fmaxf(hi, f[i]);
  if (hi > a.m) {
    a.s *= exp2f((a.m - hi) * LOG2E);
    a.m = hi;
  }
  float s = 0.f, sx = 0.f;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    s += exp2f((f[i] - a.m) * LOG2E);
    sx += f[i];
  }
  a.s += s;
  a.sx += sx;
}

__device__ __forceinline__ Softmax merge(Softmax a, Softmax b) {
  const float m = fmaxf(a.m, b.m);
  const float sa = a.m == m ? a.s : a.s * exp2f((a.m - m) * LOG2E);
  const float sb = b.m == m ? b.s : b.s * exp2f((b.m - m) * LOG2E);
  return {m, sa + sb, a.sx + b.sx};
}

__device__ __forceinline__ Softmax warp_merge(Softmax a) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    Softmax b{__shfl_xor_sync(0xffffffffu, a.m, o), __shfl_xor_sync(0xffffffffu, a.s, o),
              __shfl_xor_sync(0xffffffffu, a.sx, o)};
    a = merge(a, b);
  }
  return a;
}

__device__ __forceinline__ float bf16_at(const unsigned short* x, long long c) {
  return __uint_as_float(unsigned(__ldg(x + c)) << 16);
}

extern "C" __global__ void cross_entropy_bf16(const __nv_bfloat16* __restrict__ logits, const int* __restrict__ labels,
                                              float* __restrict__ loss, long long rows, long long vocab,
                                              double label_smoothing) {
  __shared__ Softmax red[32];
  const unsigned short* x = reinterpret_cast<const unsigned short*>(logits) + (long long)blockIdx.x * vocab;
  const int tid = threadIdx.x, nt = blockDim.x;
  Softmax a{NEG_INF, 0.f, 0.f};
  // Scalar head up to the first 16-byte boundary (rows start 2-byte aligned when vocab is odd).
  const long long mis = (long long)((reinterpret_cast<unsigned long long>(x) & 15) >> 1);
  const long long head = min(vocab, mis ? 8 - mis : 0LL);
  if (tid < head) add_one(a, bf16_at(x, tid));
  const uint4* v = reinterpret_cast<const uint4*>(x + head);
  const long long nvec = (vocab - head) >> 3;
  long long i = tid;
  for (; i + nt < nvec; i += 2 * (long long)nt) {  // two 16-byte loads in flight per thread
    const uint4 q0 = __ldcs(v + i), q1 = __ldcs(v + i + nt);
    add_eight(a, q0);
    add_eight(a, q1);
  }
  if (i < nvec) add_eight(a, __ldcs(v + i));
  for (long long c = head + nvec * 8 + tid; c < vocab; c += nt) add_one(a, bf16_at(x, c));

  a = warp_merge(a);
  const int lane = tid & 31, warp = tid >> 5, warps = (nt + 31) >> 5;
  if (lane == 0) red[warp] = a;
  __syncthreads();
  if (warp == 0) {
    a = lane < warps ? red[lane] : Softmax{NEG_INF, 0.f, 0.f};
    a = warp_merge(a);
    if (lane == 0) {
      const float lse = a.m + logf(a.s), s = float(label_smoothing);
      const float target = lse - bf16_at(x, labels[blockIdx.x]);
      loss[blockIdx.x] = s == 0.f ? target : (1.f - s) * target + s * (lse - a.sx / float(vocab));
    }
  }
}
