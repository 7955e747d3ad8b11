// kwb-expect: op=row_sum status=accepted reason="correct on"
// Honest, two launches on one stream: per-row partial sums of 1024-column chunks into the
// workspace, then one thread per row adds its partials in order.
// kwb:launch partials grid=(rows, ceil_div(cols, 1024)) block=(256) args=(x, workspace, rows, cols)
// kwb:launch finish grid=(ceil_div(rows, 128)) block=(128) args=(workspace, y, rows, cols)
// kwb:workspace bytes=4 * rows * ceil_div(cols, 1024)
extern "C" __global__ void partials(const float* x, float* ws, long long rows, long long cols) {
  __shared__ float part[8];
  const long long r = blockIdx.x, c0 = (long long)blockIdx.y * 1024;
  float s = 0.f;
  for (long long c = c0 + threadIdx.x; c < cols && c < c0 + 1024; c += blockDim.x) s += x[r * cols + c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int w = 0; w < 8; ++w) t += part[w];
    ws[r * gridDim.y + blockIdx.y] = t;
  }
}

extern "C" __global__ void finish(const float* ws, float* y, long long rows, long long cols) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const long long chunks = (cols + 1023) / 1024;
  float t = 0.f;
  for (long long j = 0; j < chunks; ++j) t += ws[r * chunks + j];
  y[r] = t;
}
