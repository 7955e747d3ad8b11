// Persisting L2 lines in the fake driver (fake_libcuda.cpp's kernels "l2keep" and "l2window"):
//  - "l2keep" (evict_last policies in its own code): its data stays in L2 unless persisting lines
//    were reset since its last launch;
//  - "l2window" (a launcher whose host code sets an access-policy window with persisting hits on
//    the stream and raises the set-aside, on every call): its data stays in L2 unless, since its
//    last launch, persisting lines were reset with the stream's window already emptied and the
//    set-aside back at 0. A conservative model of what the runner must undo before a sample, not
//    a claim that the hardware keeps lines across a reset (docs/cuda.md "Persisting L2 lines").
// A reset counts only while the device is idle. A launch that finds its data kept makes the
// sample read 1 ns (fake_libcuda.cpp's events), so a sample the runner did not reset before shows
// in the verdict's min_ns (test_fake_gpu_l2.cpp).
#include <cuda.h>

#include <cstring>

#include "fake_l2.hpp"

namespace {
bool g_busy = false;
bool g_reset_since_l2keep = true, g_reset_since_l2window = true;
size_t g_persisting_l2 = 256 << 10;  // a set-aside the runner must take back to 0
bool g_window_persists = false;      // the stream's access-policy window keeps lines
}  // namespace

namespace fake_l2 {

void device_busy(bool busy) { g_busy = busy; }

void launched(const char* name, bool& kept) {
  if (std::strcmp(name, "l2keep") == 0) {
    kept = !g_reset_since_l2keep;
    g_reset_since_l2keep = false;
  } else if (std::strcmp(name, "l2window") == 0) {
    kept = !g_reset_since_l2window;
    g_reset_since_l2window = false;
  }
}

}  // namespace fake_l2

extern "C" {

CUresult CUDAAPI cuCtxResetPersistingL2Cache() {
  if (g_busy) return CUDA_SUCCESS;
  g_reset_since_l2keep = true;
  if (!g_window_persists && g_persisting_l2 == 0) g_reset_since_l2window = true;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value) {
  if (limit != CU_LIMIT_PERSISTING_L2_CACHE_SIZE) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  g_persisting_l2 = value;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetLimit(size_t* value, CUlimit limit) {
  if (limit != CU_LIMIT_PERSISTING_L2_CACHE_SIZE) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  *value = g_persisting_l2;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamSetAttribute(CUstream, CUstreamAttrID attr, const CUstreamAttrValue* value) {
  if (attr != CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW) return CUDA_ERROR_INVALID_VALUE;
  const auto& w = value->accessPolicyWindow;
  g_window_persists = w.num_bytes > 0 && w.hitRatio > 0 && w.hitProp == CU_ACCESS_PROPERTY_PERSISTING;
  return CUDA_SUCCESS;
}

}  // extern "C"
