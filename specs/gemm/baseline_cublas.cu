// Vendor baseline for gemm (specs/gemm/spec.json, "baselines"): cuBLAS, `cuda-launcher` form.
// C[m,n] = A[m,k] * B[k,n], all row-major, C overwritten (beta = 0), f32 accumulation and output.
//
// Row-major C = A*B is column-major C^T = B^T * A^T, and a row-major X[r,c] read column-major is
// X^T with leading dimension c. So: gemm(N, N, n, m, k, B (ldb = n), A (lda = k), C (ldc = n)).
//
// Precision: CUBLAS_COMPUTE_32F with CUBLAS_DEFAULT_MATH never uses TF32 for f32 inputs (that
// needs CUBLAS_COMPUTE_32F_FAST_TF32 or CUBLAS_TF32_TENSOR_OP_MATH); TF32 would miss the spec's
// f32 tolerance (~2e-2 vs atol 5e-4 at k = 4096), and the baseline is checked before it is timed.
// bf16 A/B with f32 C uses the tensor cores with f32 accumulation.
//
// Build: nvcc -shared -Xcompiler -fPIC -O3 -std=c++17 --gpu-architecture=sm_90a
//        -o baseline_cublas.so baseline_cublas.cu -lcublas -Xlinker -rpath=<cuda>/lib64
#include <cstdint>
#include <cstdio>
#include <mutex>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

// Trusted baseline code, so one process-wide handle is fine (creating a handle per call would
// time cuBLAS's initialisation): created once, then bound to the caller's stream on every call.
// The mutex keeps the stream/workspace binding and the enqueue of one call together if the host
// ever calls from several threads.
std::mutex g_mutex;

cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t created = nullptr;
    if (cublasStatus_t s = cublasCreate(&created); s != CUBLAS_STATUS_SUCCESS) {
      std::fprintf(stderr, "kwb gemm baseline: cublasCreate failed: %s\n", cublasGetStatusString(s));
      return static_cast<cublasHandle_t>(nullptr);
    }
    // No TF32: f32 GEMMs stay in f32 (see the header comment).
    cublasSetMathMode(created, CUBLAS_DEFAULT_MATH);
    return created;
  }();
  return h;
}

// cuBLAS's recommended workspace on Hopper. Allocated on `stream` for each call (no cudaMalloc,
// which could synchronise the device, and no state that outlives the call).
constexpr size_t k_workspace_bytes = size_t(32) << 20;

void gemm(const void* a, const void* b, float* c, int64_t m, int64_t n, int64_t k, cudaDataType_t in_type,
          cudaStream_t stream, const char* variant) {
  std::lock_guard<std::mutex> lock(g_mutex);
  cublasHandle_t h = handle();
  if (!h) return;
  void* workspace = nullptr;
  if (cudaError_t e = cudaMallocAsync(&workspace, k_workspace_bytes, stream); e != cudaSuccess) {
    std::fprintf(stderr, "kwb gemm baseline (%s): cudaMallocAsync: %s\n", variant, cudaGetErrorString(e));
    return;
  }
  // cublasSetStream resets the workspace to the handle's default pool, so the user workspace
  // is set after it.
  cublasStatus_t s = cublasSetStream(h, stream);
  if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetWorkspace(h, workspace, k_workspace_bytes);
  if (s == CUBLAS_STATUS_SUCCESS) {
    const float alpha = 1.0f, beta = 0.0f;  // beta = 0: C is not read (it holds poison)
    s = cublasGemmEx_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, in_type, n, a, in_type, k, &beta, c,
                        CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  if (s != CUBLAS_STATUS_SUCCESS)
    std::fprintf(stderr, "kwb gemm baseline (%s): cuBLAS: %s\n", variant, cublasGetStatusString(s));
  cudaFreeAsync(workspace, stream);  // stream-ordered: after the GEMM that uses it
}

}  // namespace

// Variant f32: f32 A, B -> f32 C (cuBLAS SGEMM through cublasGemmEx, CUBLAS_COMPUTE_32F).
extern "C" void kwb_gemm_f32(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k,
                             cudaStream_t stream) {
  gemm(a, b, c, m, n, k, CUDA_R_32F, stream, "f32");
}

// Variant bf16: bf16 A, B -> f32 C (tensor cores, f32 accumulation).
extern "C" void kwb_gemm_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int64_t m, int64_t n,
                              int64_t k, cudaStream_t stream) {
  gemm(a, b, c, m, n, k, CUDA_R_16BF, stream, "bf16");
}
