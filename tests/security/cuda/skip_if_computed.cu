// kwb-expect: op=vector_add status=incorrect reason="never written"
// Skips the work when the output looks already computed (not the NaN a harness might leave).
// The first call of each input set sees the 0xFF (NaN) poison and computes; the determinism
// re-run is poisoned with a finite pattern (0x7F bytes), so the skip shows.
// kwb:launch skip grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
extern "C" __global__ void skip(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (c[i] == c[i]) return;  // not NaN: "already computed"
  c[i] = a[i] + b[i];
}
