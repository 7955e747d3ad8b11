#pragma once
// The CUDA driver API, loaded with dlopen (docs/cuda.md "Running: kwb-gpu-runner": every binary
// starts on a machine without a GPU). cuda.h supplies the types only; each function is resolved
// through cuGetProcAddress for the header's ABI version (CUDA_VERSION), falling back to dlsym of
// the header's versioned name (cuMemAlloc -> cuMemAlloc_v2). Names used below are the header's, so
// the macros of cuda.h map them exactly as they would for a linked program.
#include <cuda.h>

#include <string>

namespace kwb::gpu {

#define KWB_CUDA_FUNCTIONS(X)                                                                           \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)                 \
  X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDeviceGetPCIBusId) X(cuDevicePrimaryCtxRetain)        \
  X(cuDevicePrimaryCtxSetFlags) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuCtxResetPersistingL2Cache)   \
  X(cuCtxSetLimit) X(cuCtxGetLimit)                                                                    \
  X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncSetAttribute)                    \
  X(cuFuncGetAttribute) X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo) X(cuMemcpyHtoD) X(cuMemcpyDtoH)      \
  X(cuMemcpyDtoDAsync) X(cuMemsetD8) X(cuMemsetD8Async) X(cuLaunchKernel) X(cuStreamCreate)              \
  X(cuStreamSynchronize) X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)  \
  X(cuGetErrorName) X(cuGetErrorString)

// Optional: absent on older drivers.
#define KWB_CUDA_OPTIONAL_FUNCTIONS(X) X(cuFuncGetParamInfo) X(cuMemHostRegister) X(cuMemHostUnregister) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuDeviceGetUuid) X(cuStreamSetAttribute)         \
  KWB_CUDA_GRAPH_FUNCTIONS(X)

// CUDA graphs (graph_replay.cpp): stream capture of the plan, its nodes, replays. Optional so that
// a driver without them still starts; the graph commands then say what is missing.
#define KWB_CUDA_GRAPH_FUNCTIONS(X) X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphGetNodes)        \
  X(cuGraphNodeGetType) X(cuGraphChildGraphNodeGetGraph) X(cuGraphInstantiate) X(cuGraphLaunch)          \
  X(cuGraphExecDestroy) X(cuGraphDestroy)

struct CudaApi {
#define KWB_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
  KWB_CUDA_FUNCTIONS(KWB_CUDA_MEMBER)
  KWB_CUDA_OPTIONAL_FUNCTIONS(KWB_CUDA_MEMBER)
#undef KWB_CUDA_MEMBER

  // Loads libcuda.so.1 and resolves every function; false with `error` set when impossible
  // ("libcuda.so.1 not found", "cuGetProcAddress: cuMemAlloc missing").
  // `path`: an explicit library (KWB_CUDA_DRIVER), else the usual places.
  bool load(const std::string& path, std::string& error);
  // "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
  std::string describe(CUresult rc) const;
};

}  // namespace kwb::gpu
