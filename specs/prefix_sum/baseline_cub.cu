// Vendor baseline for prefix_sum (specs/prefix_sum/spec.json, "baselines"): CUB, `cuda-launcher`
// form. Inclusive scan y[i] = x[0] + ... + x[i] by cub::DeviceScan::InclusiveSum. The spec defines
// overflow as wrapping modulo 2^32, so the int32 data is scanned as uint32 (unsigned addition
// wraps by definition; signed overflow would be undefined behaviour) — same bits either way.
//
// Build: nvcc -shared -Xcompiler -fPIC -O3 -std=c++17 --gpu-architecture=sm_90a
//        -o baseline_cub.so baseline_cub.cu
#include <climits>
#include <cstdint>
#include <cstdio>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

namespace {

// NumItemsT: int while n fits (CUB then uses 32-bit offsets), else int64_t.
template <typename NumItemsT>
void scan(const uint32_t* x, uint32_t* y, NumItemsT n, cudaStream_t stream) {
  size_t bytes = 0;
  cudaError_t e = cub::DeviceScan::InclusiveSum(nullptr, bytes, x, y, n, stream);
  void* tmp = nullptr;
  if (e == cudaSuccess) e = cudaMallocAsync(&tmp, bytes ? bytes : 1, stream);
  if (e == cudaSuccess) e = cub::DeviceScan::InclusiveSum(tmp, bytes, x, y, n, stream);
  if (tmp) cudaFreeAsync(tmp, stream);
  if (e != cudaSuccess) std::fprintf(stderr, "kwb prefix_sum baseline: %s\n", cudaGetErrorString(e));
}

}  // namespace

// Variant i32.
extern "C" void kwb_prefix_sum_i32(const int32_t* x, int32_t* y, int64_t n, cudaStream_t stream) {
  const auto* ux = reinterpret_cast<const uint32_t*>(x);
  auto* uy = reinterpret_cast<uint32_t*>(y);
  if (n <= INT_MAX) scan<int>(ux, uy, int(n), stream);
  else scan<int64_t>(ux, uy, n, stream);
}
