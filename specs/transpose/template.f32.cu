// kwb:launch kwb_transpose_f32 grid=(max(1, min(ceil_div(rows * cols, 256), 65535))) block=(256) args=(x, y, rows, cols)
// transpose f32, cuda: the simplest correct kernel (a template to start from: GET /v1/specs/transpose).
// A grid-stride loop over x's elements in order: y[c * rows + r] = x[r * cols + c]. (Coalesced
// reads, scattered writes: a shared-memory tile makes both coalesced.)
extern "C" __global__ void kwb_transpose_f32(const float* x, float* y, long long rows, long long cols) {
  const long long total = rows * cols, stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
    const long long r = i / cols, c = i % cols;
    y[c * rows + r] = x[i];
  }
}
