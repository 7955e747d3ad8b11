#include "gpu_runner/cuda_api.hpp"

#include <dlfcn.h>

#include <initializer_list>

namespace kwb::gpu {

namespace {

// Where the driver's library lives on common systems. The sandbox has no /etc/ld.so.cache and
// no LD_LIBRARY_PATH, so the default search alone may miss it.
constexpr const char* k_libcuda[] = {
    "libcuda.so.1",
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
    "/usr/lib/aarch64-linux-gnu/libcuda.so.1",
    "/usr/lib64/libcuda.so.1",
    "/usr/local/nvidia/lib64/libcuda.so.1",
    "/usr/lib/wsl/lib/libcuda.so.1",
};

#define KWB_STR2(x) #x
#define KWB_STR(x) KWB_STR2(x)

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

// The exported symbol the header maps `base` to (e.g. cuMemAlloc -> cuMemAlloc_v2) has exactly
// the header's signature: use it first. cuGetProcAddress for the toolkit's version may return a
// newer ABI than the header declares (the 13.0 driver hands out cuCtxSynchronize_v2, which takes
// a context argument), so it is only the fallback for symbols that are not exported.
void* resolve(void* lib, GetProcAddress gpa, const char* base, const char* versioned) {
  if (void* fn = ::dlsym(lib, versioned)) return fn;
  void* fn = nullptr;
  if (gpa) {
    CUdriverProcAddressQueryResult status{};
    if (gpa(base, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS && fn) return fn;
  }
  return nullptr;
}

}  // namespace

bool CudaApi::load(const std::string& path, std::string& error) {
  void* lib = nullptr;
  if (!path.empty()) {
    if (!(lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      error = "cannot load the CUDA driver " + path + ": " + ::dlerror();
      return false;
    }
  }
  for (const char* p : k_libcuda)
    if (lib || (lib = ::dlopen(p, RTLD_NOW | RTLD_LOCAL))) break;
  if (!lib) {
    error = "libcuda.so.1 not found (no NVIDIA driver on this machine)";
    return false;
  }
  auto gpa = reinterpret_cast<GetProcAddress>(::dlsym(lib, "cuGetProcAddress_v2"));
#define KWB_CUDA_RESOLVE(name)                                                                  \
  name = reinterpret_cast<decltype(name)>(resolve(lib, gpa, #name, KWB_STR(name)));            \
  if (!name) {                                                                                  \
    error = std::string("the CUDA driver lacks ") + KWB_STR(name) + " (driver older than CUDA " \
            KWB_STR(CUDA_VERSION) "?)";                                                         \
    return false;                                                                               \
  }
  KWB_CUDA_FUNCTIONS(KWB_CUDA_RESOLVE)
#undef KWB_CUDA_RESOLVE
#define KWB_CUDA_RESOLVE_OPTIONAL(name) name = reinterpret_cast<decltype(name)>(resolve(lib, gpa, #name, KWB_STR(name)));
  KWB_CUDA_OPTIONAL_FUNCTIONS(KWB_CUDA_RESOLVE_OPTIONAL)
#undef KWB_CUDA_RESOLVE_OPTIONAL
  return true;
}

std::string CudaApi::describe(CUresult rc) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(rc, &name);
  if (cuGetErrorString) cuGetErrorString(rc, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(int(rc));
  if (text) s += std::string(": ") + text;
  return s;
}

}  // namespace kwb::gpu
