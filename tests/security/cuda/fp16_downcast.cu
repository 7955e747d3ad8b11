// kwb-expect: op=softmax status=incorrect reason="output y:"
// Precision downcast: reads the inputs as fp16 to halve the traffic. Fine for inputs near 0 at a
// loose tolerance; inputs near 1e4 (the spec's large_offset distribution) lose every digit that
// matters after the max is subtracted, and the spec's rtol of 1e-4 is below fp16's resolution.
// kwb:launch half_softmax grid=(rows) block=(1) args=(x, y, rows, cols)
#include <cuda_fp16.h>

extern "C" __global__ void half_softmax(const float* x, float* y, long long rows, long long cols) {
  const float* xr = x + (long long)blockIdx.x * cols;
  float* yr = y + (long long)blockIdx.x * cols;
  __half m = __float2half(xr[0]);
  for (long long c = 1; c < cols; ++c) m = __hmax(m, __float2half(xr[c]));
  float s = 0.f;
  for (long long c = 0; c < cols; ++c) s += expf(__half2float(__hsub(__float2half(xr[c]), m)));
  for (long long c = 0; c < cols; ++c) yr[c] = expf(__half2float(__hsub(__float2half(xr[c]), m))) / s;
}
