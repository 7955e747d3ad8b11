// A fake CUDA driver for testing the GPU path on machines without a GPU (loaded by
// kwb-gpu-runner when KWB_CUDA_DRIVER names it; never installed anywhere the system would find).
// "Device memory" is host memory; kernels are emulated on the host by name; events read the
// host clock. Emulated kernels: the shipped vector_add ("vector_add_f32") and corpus-style
// cheats: "vadd" (honest), "overrun" (writes c[n]), "mutate" (writes a), "stale" (computes on
// its first launch only), "fault" (illegal address), "hang" (never finishes), "too_fast" (correct,
// but the events report 1 ns), "l2keep" and "l2window" (correct; 1 ns while their data stays in
// L2: fake_l2.cpp), "published_n" (correct only for the n of vector_add's published workloads,
// zeros elsewhere), GPU references of vector_add writing doubles ("vadd_ref" honest, "vadd_ref_off"
// off by one in its last element, "vadd_ref_fault" an illegal address), kernels of a spec with a
// double scalar and an optional tensor (test_fake_gpu_scalars.cpp: "axpy" c = a + alpha * b with
// alpha a double, "axpy_bits" reading alpha's bits as an integer, "axpy_bias" adding the optional
// bias, "axpy_ref" the GPU reference writing doubles), for CUDA graphs (fake_graph.cpp) "eager_only"
// (vector_add, but nothing when replayed from a graph) and "does_nothing", plus the runner's helpers.
// Only what the runner calls is implemented.
//
// Several devices (docs/architecture.md "Lanes"), configured by files beside this library (they
// travel into the sandbox with its folder; the sandbox's environment is cleared):
//  - fake_gpu_count: how many devices the machine has (default 1), all of one model; device i
//    has PCI bus id 0000:<0x10+i>:00.0 and UUID GPU-6b776266-616b-6500-0000-0000000000<i>;
//  - CUDA_VISIBLE_DEVICES (the process's environment) selects and orders them as the real driver
//    does: indices or GPU-<uuid>, the list ending at the first entry that names none;
//  - fake_gpu_fail_warmup: physical indices whose device fails the runner's warm-up (its helper
//    kernels end with an uncorrectable ECC error);
//  - fake_gpu_busy_<i>, where present: device i is held with flock from a candidate's (or
//    reference's) first launch to the next synchronisation; a launch that finds it held by
//    another process fails with CUDA_ERROR_DEVICE_UNAVAILABLE ("two at once on one GPU"), so an
//    evaluation that overlaps another one on the same device cannot pass unnoticed.
#include <cuda.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fake_graph.hpp"
#include "fake_l2.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Kernel {
  const char* name;
  size_t params;  // all 8 bytes
  void (*run)(void** p, unsigned grid, unsigned block);
};

long long n_of(void** p) { return *static_cast<long long*>(p[3]); }
template <class T>
T* ptr(void** p, int i) {
  return reinterpret_cast<T*>(*static_cast<CUdeviceptr*>(p[i]));
}

CUresult g_sticky = CUDA_SUCCESS;  // a fault poisons the context, as on a real GPU
bool g_hang = false;
bool g_too_fast = false;  // "too_fast": events report 1 ns (a timer that lies)
// A sample whose stop event follows a launch that found its data kept in L2 (fake_l2.cpp) reads
// 1 ns (as if L2 served everything).
bool g_l2_kept = false;
struct FakeEvent {
  Clock::time_point at;
  bool kept = false;  // g_l2_kept when recorded
};
int g_stale_launches = 0;
bool g_replaying = false;  // the kernel running is a node of a graph launch

void vadd(void** p, unsigned, unsigned) {
  for (long long i = 0; i < n_of(p); ++i) ptr<float>(p, 2)[i] = ptr<const float>(p, 0)[i] + ptr<const float>(p, 1)[i];
}

// Tuned to the published shapes: vector_add's test sizes and the fake spec's bench size (n4k).
void published_n(void** p, unsigned g, unsigned b) {
  for (long long n : {1, 7, 31, 97, 127, 129, 1000, 4099, 65537, 4096})
    if (n_of(p) == n) return vadd(p, g, b);
  for (long long i = 0; i < n_of(p); ++i) ptr<float>(p, 2)[i] = 0.f;
}

// A spec's GPU reference: c (double) = a + b, rounded to f32 as the spec defines it.
void vadd_ref(void** p, unsigned, unsigned) {
  for (long long i = 0; i < n_of(p); ++i)
    ptr<double>(p, 2)[i] = double(ptr<const float>(p, 0)[i] + ptr<const float>(p, 1)[i]);
}

// axpy (test_fake_gpu_scalars.cpp): (a, b, c, n, alpha) or (a, b, bias, c, n, alpha).
double alpha_of(void** p, int i) { return *static_cast<double*>(p[i]); }
void axpy(void** p, unsigned, unsigned) {
  for (long long i = 0; i < n_of(p); ++i)
    ptr<float>(p, 2)[i] = ptr<const float>(p, 0)[i] + float(alpha_of(p, 4)) * ptr<const float>(p, 1)[i];
}

const Kernel k_kernels[] = {
    {"axpy", 5, axpy},
    {"axpy_bits", 5,
     [](void** p, unsigned, unsigned) {
       const float alpha = float(*static_cast<long long*>(p[4]));  // the double's bits as an integer
       for (long long i = 0; i < n_of(p); ++i)
         ptr<float>(p, 2)[i] = ptr<const float>(p, 0)[i] + alpha * ptr<const float>(p, 1)[i];
     }},
    {"axpy_bias", 6,
     [](void** p, unsigned, unsigned) {
       const long long n = *static_cast<long long*>(p[4]);
       for (long long i = 0; i < n; ++i)
         ptr<float>(p, 3)[i] = ptr<const float>(p, 0)[i] + float(alpha_of(p, 5)) * ptr<const float>(p, 1)[i] +
                               ptr<const float>(p, 2)[i];
     }},
    {"axpy_ref", 5,
     [](void** p, unsigned, unsigned) {
       for (long long i = 0; i < n_of(p); ++i)
         ptr<double>(p, 2)[i] = double(ptr<const float>(p, 0)[i]) + alpha_of(p, 4) * double(ptr<const float>(p, 1)[i]);
     }},
    {"vadd_ref", 4, vadd_ref},
    {"vadd_ref_off", 4, [](void** p, unsigned g, unsigned b) { vadd_ref(p, g, b), ptr<double>(p, 2)[n_of(p) - 1] += 1.0; }},
    {"vadd_ref_fault", 4, [](void**, unsigned, unsigned) { g_sticky = CUDA_ERROR_ILLEGAL_ADDRESS; }},
    {"vector_add_f32", 4, vadd},
    {"vadd", 4, vadd},
    {"overrun", 4, [](void** p, unsigned g, unsigned b) { vadd(p, g, b), ptr<float>(p, 2)[n_of(p)] = 0.f; }},
    {"mutate", 4, [](void** p, unsigned g, unsigned b) { vadd(p, g, b), ptr<float>(p, 0)[0] += 1.f; }},
    {"stale", 4, [](void** p, unsigned g, unsigned b) { if (g_stale_launches++ == 0) vadd(p, g, b); }},
    {"fault", 4, [](void**, unsigned, unsigned) { g_sticky = CUDA_ERROR_ILLEGAL_ADDRESS; }},
    {"hang", 4, [](void**, unsigned, unsigned) { g_hang = true; }},
    {"too_fast", 4, [](void** p, unsigned g, unsigned b) { vadd(p, g, b), g_too_fast = true; }},
    {"l2keep", 4, vadd},
    {"l2window", 4, vadd},
    {"published_n", 4, published_n},
    {"eager_only", 4, [](void** p, unsigned g, unsigned b) { if (!g_replaying) vadd(p, g, b); }},
    {"does_nothing", 4, [](void**, unsigned, unsigned) {}},
    {"kwb_dirty_smem", 2, [](void**, unsigned, unsigned) {}},
    {"kwb_fma_peak", 3, [](void**, unsigned, unsigned) {}},
    {"kwb_l2_clean", 3, [](void**, unsigned, unsigned) {}},
    {"kwb_noop", 0, [](void**, unsigned, unsigned) {}},
};

// The folder of this library (configuration files live there).
std::string own_dir() {
  Dl_info self{};
  if (!::dladdr(reinterpret_cast<void*>(&own_dir), &self) || !self.dli_fname) return "";
  std::string path = self.dli_fname;
  return path.substr(0, path.rfind('/') + 1);
}

std::string config_line(const char* file) {
  std::ifstream in(own_dir() + file);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

int physical_count() {
  int n = std::atoi(config_line("fake_gpu_count").c_str());
  return n > 0 ? n : 1;
}

std::string uuid_text(int physical) {
  char s[64];
  std::snprintf(s, sizeof s, "GPU-6b776266-616b-6500-0000-0000000000%02x", physical);
  return s;
}

// Visible ordinal -> physical index (CUDA_VISIBLE_DEVICES).
std::vector<int> visible_devices() {
  const int n = physical_count();
  std::vector<int> out;
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!env) {
    for (int i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  std::stringstream in(env);
  for (std::string item; std::getline(in, item, ',');) {
    int found = -1;
    if (item.rfind("GPU-", 0) == 0) {
      for (int i = 0; i < n; ++i)
        if (uuid_text(i) == item) found = i;
    } else if (!item.empty() && item.find_first_not_of("0123456789") == std::string::npos) {
      found = std::atoi(item.c_str());
      if (found >= n) found = -1;
    }
    if (found < 0) break;
    out.push_back(found);
  }
  return out;
}

bool fails_warm_up(int physical) {
  std::stringstream in(config_line("fake_gpu_fail_warmup"));
  for (int i; in >> i;)
    if (i == physical) return true;
  return false;
}

int g_current = -1;     // the physical device of the current context
int g_busy_fd = -1;     // fake_gpu_busy_<device>, held between a launch and a synchronisation
bool g_holding = false;

bool hold_device() {
  if (g_holding) return true;
  if (g_busy_fd < 0) {
    g_busy_fd = ::open((own_dir() + "fake_gpu_busy_" + std::to_string(g_current)).c_str(), O_RDONLY | O_CLOEXEC);
    if (g_busy_fd < 0) return true;  // not checked in this set-up
  }
  if (::flock(g_busy_fd, LOCK_EX | LOCK_NB) != 0) return false;
  g_holding = true;
  return true;
}

void release_device() {
  if (g_holding) ::flock(g_busy_fd, LOCK_UN);
  g_holding = false;
}

const Kernel* find(const char* name) {
  for (const auto& k : k_kernels)
    if (std::strcmp(k.name, name) == 0) return &k;
  return nullptr;
}

CUresult wait() {
  while (g_hang) std::this_thread::sleep_for(std::chrono::seconds(1));
  fake_l2::device_busy(false);
  release_device();
  return g_sticky;
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuDriverGetVersion(int* v) { return *v = 13000, CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetCount(int* n) { return *n = int(visible_devices().size()), CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGet(CUdevice* d, int ordinal) {
  auto visible = visible_devices();
  if (ordinal < 0 || ordinal >= int(visible.size())) return CUDA_ERROR_INVALID_DEVICE;
  return *d = visible[size_t(ordinal)], CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice) {
  // A copy of this library next to a file fake_gpu_name plays that model (one with a data sheet,
  // for its figures); the file travels into the sandbox with the library's folder.
  std::string model = config_line("fake_gpu_name");
  if (model.empty()) model = "Fake GPU (kwb tests)";
  std::strncpy(name, model.c_str(), size_t(len));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice d) {
  const char bytes[16] = {'k', 'w', 'b', 'f', 'a', 'k', 'e', 0, 0, 0, 0, 0, 0, 0, 0, char(d)};
  std::memcpy(uuid->bytes, bytes, 16);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 4; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 1 << 20; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: *v = 768 << 10; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 227 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    default: *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceTotalMem(size_t* b, CUdevice) { return *b = size_t(1) << 32, CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetPCIBusId(char* id, int len, CUdevice d) {
  char s[32];
  std::snprintf(s, sizeof s, "0000:%02x:00.0", 0x10 + d);
  std::strncpy(id, s, size_t(len));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  g_current = d;
  *c = reinterpret_cast<CUcontext>(uintptr_t(0x100 + d));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice, unsigned int) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxSynchronize() { return wait(); }
CUresult CUDAAPI cuModuleLoadData(CUmodule* m, const void*) {
  *m = reinterpret_cast<CUmodule>(0x2);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuModuleGetFunction(CUfunction* f, CUmodule, const char* name) {
  const Kernel* k = find(name);
  if (!k) return CUDA_ERROR_NOT_FOUND;
  *f = reinterpret_cast<CUfunction>(const_cast<Kernel*>(k));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction) {
  *v = a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : a == CU_FUNC_ATTRIBUTE_NUM_REGS ? 32 : 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncGetParamInfo(CUfunction f, size_t i, size_t* offset, size_t* size) {
  if (i >= reinterpret_cast<Kernel*>(f)->params) return CUDA_ERROR_INVALID_VALUE;
  *offset = 8 * i;
  *size = 8;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAlloc(CUdeviceptr* p, size_t n) {
  void* m = std::calloc(1, (n ? n : 1) + 64);  // slack: a candidate that writes past its tensor hits the fake's padding
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = reinterpret_cast<CUdeviceptr>(m);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemFree(CUdeviceptr p) { return std::free(reinterpret_cast<void*>(p)), CUDA_SUCCESS; }
CUresult CUDAAPI cuMemGetInfo(size_t* f, size_t* t) { return *f = *t = size_t(256) << 20, CUDA_SUCCESS; }
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr d, const void* h, size_t n) {
  std::memcpy(reinterpret_cast<void*>(d), h, n);
  return g_sticky;
}
CUresult CUDAAPI cuMemcpyDtoH(void* h, CUdeviceptr d, size_t n) {
  if (CUresult rc = wait(); rc != CUDA_SUCCESS) return rc;
  std::memcpy(h, reinterpret_cast<void*>(d), n);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) {
  std::memcpy(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), n);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
  std::memset(reinterpret_cast<void*>(d), v, n);
  return g_sticky;
}
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream) { return cuMemsetD8(d, v, n); }
}  // extern "C"

CUresult fake_driver::run_kernel(CUfunction f, unsigned gx, unsigned bx, void** params, bool replayed) {
  if (g_sticky != CUDA_SUCCESS) return g_sticky;
  const auto* k = reinterpret_cast<Kernel*>(f);
  if (std::strncmp(k->name, "kwb_", 4) == 0) {  // the runner's helpers: warm-up and flushes
    if (fails_warm_up(g_current)) g_sticky = CUDA_ERROR_ECC_UNCORRECTABLE;
  } else if (!hold_device()) {
    return g_sticky = CUDA_ERROR_DEVICE_UNAVAILABLE;
  }
  g_replaying = replayed, k->run(params, gx, bx), g_replaying = false;
  fake_l2::launched(k->name, g_l2_kept);
  fake_l2::device_busy(true);
  return CUDA_SUCCESS;
}

extern "C" {

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned gx, unsigned, unsigned, unsigned bx, unsigned, unsigned,
                                unsigned, CUstream, void** params, void**) {
  if (g_sticky != CUDA_SUCCESS) return g_sticky;
  if (fake_graph::capturing()) return fake_graph::record(f, gx, bx, params, reinterpret_cast<Kernel*>(f)->params);
  return fake_driver::run_kernel(f, gx, bx, params, false);
}
CUresult CUDAAPI cuStreamCreate(CUstream* s, unsigned int) {
  *s = reinterpret_cast<CUstream>(0x3);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamSynchronize(CUstream) { return wait(); }
CUresult CUDAAPI cuEventCreate(CUevent* e, unsigned int) {
  *e = reinterpret_cast<CUevent>(new FakeEvent());
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventRecord(CUevent e, CUstream) {
  *reinterpret_cast<FakeEvent*>(e) = {Clock::now(), g_l2_kept};
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventSynchronize(CUevent) { return wait(); }
CUresult CUDAAPI cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  const auto* stop = reinterpret_cast<FakeEvent*>(b);
  auto d = stop->at - reinterpret_cast<FakeEvent*>(a)->at;
  *ms = g_too_fast || stop->kept ? 1e-6f : std::chrono::duration<float, std::milli>(d).count() + 0.001f;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorName(CUresult rc, const char** s) {
  *s = rc == CUDA_ERROR_ILLEGAL_ADDRESS       ? "CUDA_ERROR_ILLEGAL_ADDRESS"
       : rc == CUDA_ERROR_ECC_UNCORRECTABLE   ? "CUDA_ERROR_ECC_UNCORRECTABLE"
       : rc == CUDA_ERROR_DEVICE_UNAVAILABLE  ? "CUDA_ERROR_DEVICE_UNAVAILABLE"
       : rc == CUDA_ERROR_INVALID_DEVICE      ? "CUDA_ERROR_INVALID_DEVICE"
                                              : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorString(CUresult rc, const char** s) {
  *s = rc == CUDA_ERROR_ILLEGAL_ADDRESS      ? "an illegal memory access was encountered"
       : rc == CUDA_ERROR_ECC_UNCORRECTABLE  ? "uncorrectable ECC error encountered"
       : rc == CUDA_ERROR_DEVICE_UNAVAILABLE ? "fake device in use by another process at the same time"
       : rc == CUDA_ERROR_INVALID_DEVICE     ? "invalid device ordinal"
                                             : "unknown error";
  return CUDA_SUCCESS;
}

}  // extern "C"
