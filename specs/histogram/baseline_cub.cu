// Vendor baseline for histogram (specs/histogram/spec.json, "baselines"): CUB, `cuda-launcher`
// form. bins[v] = number of i with x[i] == v for the 256 byte values, by
// cub::DeviceHistogram::HistogramEven with 257 levels 0, 1, ..., 256 (one bin per byte value).
// The counters are the spec's u32 directly (CUB's CounterT may be unsigned int), and CUB's init
// kernel zeroes them on the stream first, as the spec requires.
//
// Build: nvcc -shared -Xcompiler -fPIC -O3 -std=c++17 --gpu-architecture=sm_90a
//        -o baseline_cub.so baseline_cub.cu
#include <climits>
#include <cstdint>
#include <cstdio>

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

namespace {

// LevelT int: 256, the upper level, does not fit in the u8 sample type.
constexpr int k_levels = 257, k_lower = 0, k_upper = 256;

// OffsetT: int while n fits (CUB's usual), else int64_t.
template <typename OffsetT>
void histogram(const uint8_t* x, uint32_t* bins, OffsetT n, cudaStream_t stream) {
  size_t bytes = 0;
  cudaError_t e = cub::DeviceHistogram::HistogramEven(nullptr, bytes, x, bins, k_levels, k_lower, k_upper, n, stream);
  void* tmp = nullptr;
  if (e == cudaSuccess) e = cudaMallocAsync(&tmp, bytes ? bytes : 1, stream);
  if (e == cudaSuccess)
    e = cub::DeviceHistogram::HistogramEven(tmp, bytes, x, bins, k_levels, k_lower, k_upper, n, stream);
  if (tmp) cudaFreeAsync(tmp, stream);
  if (e != cudaSuccess) std::fprintf(stderr, "kwb histogram baseline: %s\n", cudaGetErrorString(e));
}

}  // namespace

// Variant u8: u8 x -> u32 bins.
extern "C" void kwb_histogram_u8(const uint8_t* x, uint32_t* bins, int64_t n, cudaStream_t stream) {
  if (n <= INT_MAX) histogram<int>(x, bins, int(n), stream);
  else histogram<int64_t>(x, bins, n, stream);
}
