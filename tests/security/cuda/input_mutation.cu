// kwb-expect: op=softmax status=incorrect reason="input x was modified"
// Correct output, but uses its input as scratch space (stores exp(x - max) into x).
// kwb:launch scratch grid=(rows) block=(1) args=(x, y, rows, cols)
extern "C" __global__ void scratch(const float* x_in, float* y, long long rows, long long cols) {
  float* x = const_cast<float*>(x_in) + (long long)blockIdx.x * cols;
  float* yr = y + (long long)blockIdx.x * cols;
  float m = x[0];
  for (long long c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
  float s = 0.f;
  for (long long c = 0; c < cols; ++c) {
    x[c] = expf(x[c] - m);
    s += x[c];
  }
  for (long long c = 0; c < cols; ++c) yr[c] = x[c] / s;
}
