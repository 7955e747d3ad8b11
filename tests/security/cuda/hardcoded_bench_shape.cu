// kwb-expect: op=vector_add status=incorrect reason="workload n1M"
// Correct on small sizes; for the 1M-element bench shape it returns a canned answer (zeros)
// instead of computing. Bench workloads are checked on fresh inputs before they are timed.
// kwb:launch canned grid=(ceil_div(n, 256)) block=(256) args=(a, b, c, n)
extern "C" __global__ void canned(const float* a, const float* b, float* c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  c[i] = n == 1048576 ? 0.f : a[i] + b[i];
}
