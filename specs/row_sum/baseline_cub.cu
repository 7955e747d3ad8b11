// Vendor baseline for row_sum (specs/row_sum/spec.json, "baselines"): CUB, `cuda-launcher` form.
// y[r] = sum of row r of a row-major rows x cols f32 matrix, by cub::DeviceSegmentedReduce::Sum
// with one segment per row. The row offsets r * cols come from a counting iterator through a
// multiply (no offset array is uploaded). CCCL 3 (CUDA 13) dropped cub::CountingInputIterator and
// cub::TransformInputIterator; Thrust's fancy iterators are the replacement.
//
// Build: nvcc -shared -Xcompiler -fPIC -O3 -std=c++17 --gpu-architecture=sm_90a
//        -o baseline_cub.so baseline_cub.cu
#include <climits>
#include <cstdint>
#include <cstdio>

#include <cub/device/device_segmented_reduce.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace {

template <typename OffsetT>
struct TimesCols {
  OffsetT cols;
  __host__ __device__ OffsetT operator()(OffsetT r) const { return r * cols; }
};

// OffsetT: int while rows * cols fits (CUB's usual, faster index arithmetic), else int64_t.
template <typename OffsetT>
void row_sum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  using Offsets = thrust::transform_iterator<TimesCols<OffsetT>, thrust::counting_iterator<OffsetT>>;
  const Offsets begin(thrust::counting_iterator<OffsetT>(0), TimesCols<OffsetT>{OffsetT(cols)});
  const Offsets end = begin + 1;  // end of row r = start of row r + 1
  size_t bytes = 0;
  cudaError_t e = cub::DeviceSegmentedReduce::Sum(nullptr, bytes, x, y, rows, begin, end, stream);
  void* tmp = nullptr;
  if (e == cudaSuccess) e = cudaMallocAsync(&tmp, bytes ? bytes : 1, stream);
  if (e == cudaSuccess) e = cub::DeviceSegmentedReduce::Sum(tmp, bytes, x, y, rows, begin, end, stream);
  if (tmp) cudaFreeAsync(tmp, stream);
  if (e != cudaSuccess) std::fprintf(stderr, "kwb row_sum baseline: %s\n", cudaGetErrorString(e));
}

}  // namespace

// Variant f32.
extern "C" void kwb_row_sum_f32(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows * cols <= INT_MAX) row_sum<int>(x, y, rows, cols, stream);
  else row_sum<int64_t>(x, y, rows, cols, stream);
}
