// kwb:launch embedding_bf16 grid=(ceil_div(tokens, ROWS)) block=(BLOCK) args=(table, ids, out, tokens, vocab, dim)
// kwb:tune BLOCK=128,256
// kwb:tune ROWS=1,2
// embedding bf16: ROWS tokens per block, each row copied by the whole block with 16-byte loads
// and stores (8 bf16; the table read through the read-only path) when dim is a multiple of 8,
// element by element otherwise. The id is read once per row by every thread (one broadcast load).
#include <cuda_bf16.h>

extern "C" __global__ void __launch_bounds__(BLOCK) embedding_bf16(const __nv_bfloat16* __restrict__ table,
                                                                   const int* __restrict__ ids,
                                                                   __nv_bfloat16* __restrict__ out, long long tokens,
                                                                   long long vocab, long long dim) {
  const bool vec = (dim & 7) == 0 &&
                   ((reinterpret_cast<unsigned long long>(table) | reinterpret_cast<unsigned long long>(out)) & 15) == 0;
#pragma unroll
  for (int k = 0; k < ROWS; ++k) {
    const long long t = (long long)blockIdx.x * ROWS + k;
    if (t >= tokens) return;
    const long long id = __ldg(ids + t);
    if (vec) {
      const uint4* src = reinterpret_cast<const uint4*>(table + id * dim);
      uint4* dst = reinterpret_cast<uint4*>(out + t * dim);
      for (long long i = threadIdx.x; i < dim / 8; i += BLOCK) dst[i] = __ldg(src + i);
    } else {
      const __nv_bfloat16* src = table + id * dim;
      for (long long i = threadIdx.x; i < dim; i += BLOCK) out[t * dim + i] = src[i];
    }
  }
}
