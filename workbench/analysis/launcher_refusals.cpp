// The calls a cuda-launcher candidate may not make (launcher_refusals.hpp), by name.
#include "analysis/launcher_refusals.hpp"

#include <map>
#include <set>
#include <string>

namespace kwb::analysis {

namespace {

enum class Why { stream_create, event_create, graph, callback, device, destroy, host_memory, sync_copy, launch_ex, cublas_xt };

LauncherRefusal advice(Why w) {
  switch (w) {
    case Why::stream_create:
      return {"creates a stream", "all GPU work must go on the entry's `{s}` parameter, in order: use it instead of a "
                                  "stream of your own"};
    case Why::event_create:
      return {"creates an event", "work on the entry's `{s}` runs in order and the workbench does the timing: remove "
                                  "it and launch everything on `{s}`"};
    case Why::graph:
      return {"builds, captures or launches a CUDA graph",
              "launch the kernels directly on the entry's `{s}` parameter"};
    case Why::callback:
      return {"runs a host function from a stream (a host callback)",
              "do host work in the entry itself, before it returns, and GPU work on the entry's `{s}` parameter"};
    case Why::device:
      return {"acts on the whole device (device-wide synchronisation, reset, device selection or configuration)",
              "remove it: the workbench synchronises the device after the call and owns its configuration; order "
              "work by launching it on the entry's `{s}` parameter"};
    case Why::destroy:
      return {"destroys a stream", "the entry's `{s}` belongs to the workbench, and no other stream may exist"};
    case Why::host_memory:
      return {"allocates or registers host (pinned or managed) memory",
              "launcher work stays on the device: allocate scratch with cudaMallocAsync(&p, bytes, {s}) and free it "
              "with cudaFreeAsync(p, {s})"};
    case Why::sync_copy:
      return {"copies or sets memory on the default stream (it takes no stream)",
              "use the Async form on the entry's stream: cudaMemcpyAsync(..., {s}) / cudaMemsetAsync(..., {s})"};
    case Why::launch_ex:
      return {"takes its stream inside a launch-configuration struct, which the analysis cannot follow",
              "launch with k<<<grid, block, smem, {s}>>>(...) or cudaLaunchKernel(..., {s})"};
    case Why::cublas_xt:
      return {"uses cuBLASXt, which spreads work over streams and devices of its own",
              "use cuBLAS with cublasSetStream(handle, {s})"};
  }
  return {"", ""};
}

const std::map<std::string, Why, std::less<>>& refused_by_name() {
  static const auto t = [] {
    std::map<std::string, Why, std::less<>> m;
    auto add = [&](Why w, std::initializer_list<const char*> names) {
      for (const char* n : names) m[n] = w;
    };
    add(Why::stream_create, {"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
                             "cuStreamCreate", "cuStreamCreateWithPriority"});
    add(Why::event_create, {"cudaEventCreate", "cudaEventCreateWithFlags", "cuEventCreate"});
    add(Why::graph, {"cudaStreamBeginCapture", "cudaStreamBeginCaptureToGraph", "cudaStreamEndCapture",
                     "cuStreamBeginCapture", "cuStreamBeginCaptureToGraph", "cuStreamEndCapture",
                     "cudaThreadExchangeStreamCaptureMode", "cudaUserObjectCreate", "cudaDeviceGraphMemTrim",
                     "cudaDeviceSetGraphMemAttribute"});
    add(Why::callback, {"cudaLaunchHostFunc", "cudaStreamAddCallback", "cuLaunchHostFunc", "cuStreamAddCallback"});
    add(Why::device,
        {"cudaDeviceSynchronize", "cudaDeviceReset", "cudaSetDevice", "cudaSetDeviceFlags", "cudaSetValidDevices",
         "cudaInitDevice", "cudaDeviceSetLimit", "cudaDeviceSetCacheConfig", "cudaDeviceSetSharedMemConfig",
         "cudaCtxResetPersistingL2Cache", "cudaThreadSynchronize", "cudaThreadExit", "cudaThreadSetLimit",
         "cudaThreadSetCacheConfig", "cudaDeviceSetMemPool", "cudaDeviceEnablePeerAccess",
         "cudaDeviceDisablePeerAccess", "cudaDeviceFlushGPUDirectRDMAWrites", "cuInit", "cuCtxSynchronize",
         "cuCtxCreate", "cuCtxDestroy", "cuCtxSetCurrent", "cuCtxPushCurrent", "cuCtxPopCurrent", "cuCtxSetLimit",
         "cuCtxSetCacheConfig", "cuCtxResetPersistingL2Cache", "cuDevicePrimaryCtxReset",
         "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxSetFlags"});
    add(Why::destroy, {"cudaStreamDestroy", "cuStreamDestroy"});
    add(Why::host_memory, {"cudaMallocHost", "cudaHostAlloc", "cudaHostRegister", "cudaMallocManaged",
                           "cuMemAllocHost", "cuMemHostAlloc", "cuMemHostRegister", "cuMemAllocManaged"});
    add(Why::sync_copy, {"cublasSetVector", "cublasGetVector", "cublasSetMatrix", "cublasGetMatrix",
                         "cublasSetVector_64", "cublasGetVector_64", "cublasSetMatrix_64", "cublasGetMatrix_64"});
    add(Why::launch_ex, {"cudaLaunchKernelEx", "cudaLaunchKernelExC", "cuLaunchKernelEx"});
    return m;
  }();
  return t;
}

const Why* classify(std::string_view name) {
  static const Why graph = Why::graph, sync = Why::sync_copy, xt = Why::cublas_xt;
  std::string_view n = without_api_version(name);
  const auto& t = refused_by_name();
  if (auto it = t.find(n); it != t.end()) return &it->second;
  if (n.starts_with("cudaGraph") || n.starts_with("cuGraph")) return &graph;
  if (n.starts_with("cublasXt")) return &xt;
  bool copy = n.starts_with("cudaMemcpy") || n.starts_with("cudaMemset") || n.starts_with("cuMemcpy") ||
              n.starts_with("cuMemsetD");
  if (copy && !n.ends_with("Async")) return &sync;
  return nullptr;
}

}  // namespace

std::optional<LauncherRefusal> launcher_refusal(std::string_view name) {
  const Why* why = classify(name);
  if (!why) return std::nullopt;
  return advice(*why);
}

// The driver API renames functions through macros (cuCtxCreate -> cuCtxCreate_v2, cuMemcpyHtoD_v2).
std::string_view without_api_version(std::string_view n) {
  for (std::string_view suffix : {"_v2", "_v3", "_v4", "_ptsz", "_ptds"})
    if (n.ends_with(suffix)) return n.substr(0, n.size() - suffix.size());
  return n;
}

bool cublas_admin_call(std::string_view name) {
  static const std::set<std::string, std::less<>> admin = {
      "cublasCreate", "cublasDestroy", "cublasSetStream", "cublasGetStream", "cublasSetMathMode",
      "cublasGetMathMode", "cublasSetPointerMode", "cublasGetPointerMode", "cublasSetWorkspace", "cublasGetVersion",
      "cublasGetProperty", "cublasGetStatusName", "cublasGetStatusString", "cublasSetAtomicsMode",
      "cublasGetAtomicsMode", "cublasGetCudartVersion", "cublasLoggerConfigure", "cublasSetLoggerCallback",
      "cublasGetLoggerCallback", "cublasSetSmCountTarget", "cublasGetSmCountTarget"};
  return admin.contains(without_api_version(name));
}

}  // namespace kwb::analysis
