// kwb:launch kwb_embedding_bf16 grid=(tokens) block=(256) args=(table, ids, out, tokens, vocab, dim)
// embedding bf16, cuda: a simple correct kernel (a template to start from: GET /v1/specs/embedding).
// One block per token copies its row of the table, element by element.
#include <cuda_bf16.h>

extern "C" __global__ void kwb_embedding_bf16(const __nv_bfloat16* table, const int* ids, __nv_bfloat16* out,
                                              long long tokens, long long vocab, long long dim) {
  const long long t = blockIdx.x;
  const __nv_bfloat16* row = table + (long long)ids[t] * dim;
  for (long long c = threadIdx.x; c < dim; c += blockDim.x) out[t * dim + c] = row[c];
}
