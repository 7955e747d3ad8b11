// kwb-expect: op=softmax status=incorrect reason="only row 0 is right"
// Partial work: launches one block and normalises row 0 only.
// kwb:launch row0 grid=(1) block=(1) args=(x, y, rows, cols)
extern "C" __global__ void row0(const float* x, float* y, long long rows, long long cols) {
  float m = x[0];
  for (long long c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
  float s = 0.f;
  for (long long c = 0; c < cols; ++c) s += expf(x[c] - m);
  for (long long c = 0; c < cols; ++c) y[c] = expf(x[c] - m) / s;
}
