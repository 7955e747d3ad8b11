// The GPU reference of gemm (docs/specs.md "GPU references"): C = A * B computed in double, one
// output element per thread, 16 x 16 tiles of A and B staged through shared memory as doubles.
// Every product of two f32 (or bf16) values is exact in double and the sum runs in k order in
// double, as in reference.cpp, so the two agree to ~1e-13 relative; the workbench checks that on
// every test workload before this kernel judges any bench workload.
#define TILE 16

__device__ double value(const float* p, long long i) { return double(p[i]); }
// bf16 bits (the variant's inputs, as on the CPU): the top half of an f32.
__device__ double value(const unsigned short* p, long long i) { return double(__uint_as_float(unsigned(p[i]) << 16)); }

template <class In>
__device__ void gemm(const In* A, const In* B, double* C, long long M, long long N, long long K) {
  __shared__ double As[TILE][TILE], Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long row = (long long)blockIdx.y * TILE + ty, col = (long long)blockIdx.x * TILE + tx;
  double acc = 0.0;
  for (long long k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = row < M && k0 + tx < K ? value(A, row * K + k0 + tx) : 0.0;
    Bs[ty][tx] = k0 + ty < K && col < N ? value(B, (k0 + ty) * N + col) : 0.0;
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk) acc += As[ty][kk] * Bs[kk][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" __global__ void gemm_reference_f32(const float* A, const float* B, double* C, long long M, long long N,
                                              long long K) {
  gemm(A, B, C, M, N, K);
}

extern "C" __global__ void gemm_reference_bf16(const unsigned short* A, const unsigned short* B, double* C,
                                               long long M, long long N, long long K) {
  gemm(A, B, C, M, N, K);
}
