#include "analysis/cuda_prelude.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <set>

#include "util/fs.hpp"

namespace kwb::analysis {

namespace {

// Headers of the toolkit whose definitions (*.hpp) the prelude leaves out: their include guards
// are defined first (NVRTC mode already skips math_functions.hpp and device_functions.hpp). The .h
// files declare every function the .hpp files define. mma.hpp alone would cost ~6 ms per parse;
// cuda_fp16.hpp and cuda_bf16.hpp cost next to nothing and are kept.
constexpr const char* k_hpp_guards[] = {
    "__VECTOR_FUNCTIONS_HPP__",       "__DEVICE_FUNCTIONS_HPP__",        "__DEVICE_DOUBLE_FUNCTIONS_HPP__",
    "__MATH_FUNCTIONS_HPP__",         "__DEVICE_ATOMIC_FUNCTIONS_HPP__", "__SM_20_ATOMIC_FUNCTIONS_HPP__",
    "__SM_32_ATOMIC_FUNCTIONS_HPP__", "__SM_60_ATOMIC_FUNCTIONS_HPP__",  "__SM_20_INTRINSICS_HPP__",
    "__SM_30_INTRINSICS_HPP__",       "__SM_32_INTRINSICS_HPP__",        "__SM_61_INTRINSICS_HPP__",
    "__SM_70_RT_HPP__",               "__SM_80_RT_HPP__",                "__SM_90_RT_HPP__",
    "__SM_100_RT_HPP__",              "__CUDA_MMA_HPP__"};

// Includes a source may have and still be parsed with the prelude (each parses with it). Anything
// else (cooperative_groups, cub, <cmath>, ...) goes to clang's CUDA wrapper.
const std::set<std::string, std::less<>> k_fitting = {
    "cstdint",         "stdint.h",         "cstddef",          "stddef.h",
    "climits",         "limits.h",         "cfloat",           "float.h",
    "type_traits",     "utility",          "cuda_runtime.h",   "cuda_runtime_api.h",
    "device_launch_parameters.h",          "vector_types.h",   "vector_functions.h",
    "cuda_fp16.h",     "cuda_bf16.h",      "cuda_fp8.h",       "mma.h",
    "cuda_pipeline.h", "cuda_awbarrier.h", "cuda/std/cstdint", "cuda/std/limits"};

constexpr const char* k_prelude = R"(// kwb analysis: the CUDA device side as NVRTC sees it (generated)
#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __CUDACC_VER_MAJOR__ {major}
#define __CUDACC_VER_MINOR__ {minor}
#define __CUDACC_VER_BUILD__ 0
// What CCCL reads under clang (cuda.h and cuda_runtime_api.h, which define them, are host headers).
#define CUDA_VERSION {version}
#define CUDART_VERSION {version}
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef long clock_t;
// NVRTC provides ::std::move and ::std::forward implicitly.
#include <bits/move.h>
// common_functions.h declares these host+device, clashing with clang's implicit host operator
// new and the C library; they are declared device-only below, as clang's CUDA wrapper does.
#define __COMMON_FUNCTIONS_H__
{hpp_guards}// NVRTC is not gcc: without this the headers take their libstdc++ paths (__gnu_cxx::__promote_2).
#pragma push_macro("__GNUC__")
#undef __GNUC__
#include <cuda_runtime.h>
#define __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__
#include <crt/math_functions.h>
#undef __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__
#pragma pop_macro("__GNUC__")
extern "C" {{
__device__ clock_t clock(void);
__device__ void* memset(void*, int, size_t);
__device__ void* memcpy(void*, const void*, size_t);
__device__ int printf(const char*, ...);
__device__ void* malloc(size_t);
__device__ void free(void*);
__device__ void __assertfail(const char*, const char*, unsigned int, const char*, size_t);
__device__ void __assert_fail(const char*, const char*, unsigned int, const char*);
}}
#define assert(e) ((e) ? static_cast<void>(0) : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
// Device operator new/delete (placement new included), through clang's <new> wrapper.
#include <new>
)";

// The header name of each #include line ("" for a computed include).
std::vector<std::string> included_headers(std::string_view source) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < source.size()) {
    size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = source.substr(pos, end - pos);
    pos = end + 1;
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string_view::npos || line.substr(i, 7) != "include") continue;
    i = line.find_first_not_of(" \t", i + 7);
    char close = i == std::string_view::npos ? 0 : line[i] == '<' ? '>' : line[i] == '"' ? '"' : 0;
    size_t stop = close ? line.find(close, i + 1) : std::string_view::npos;
    out.push_back(stop == std::string_view::npos ? "" : std::string(line.substr(i + 1, stop - i - 1)));
  }
  return out;
}

}  // namespace

std::optional<int> cudart_version(const std::filesystem::path& cuda_path) {
  auto text = util::read_file(cuda_path / "include" / "cuda_runtime_api.h");
  if (!text) return std::nullopt;
  const std::string_view key = "#define CUDART_VERSION";
  size_t at = text->find(key);
  if (at == std::string::npos) return std::nullopt;
  int v = std::atoi(text->c_str() + at + key.size());
  return v >= 12000 ? std::optional<int>(v) : std::nullopt;  // the prelude is written against CUDA 12/13
}

std::string cuda_prelude(int version, bool fp) {
  std::string guards;
  for (const char* g : k_hpp_guards) guards += fmt::format("#define {}\n", g);
  std::string text = fmt::format(fmt::runtime(k_prelude), fmt::arg("major", version / 1000),
                                 fmt::arg("minor", version % 1000 / 10), fmt::arg("version", version),
                                 fmt::arg("hpp_guards", guards));
  if (fp) text += "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <mma.h>\n";
  return text;
}

std::vector<std::pair<std::string, std::string>> nvrtc_stub_headers() {
  return {{"nvrtc_device_runtime.h", "// kwb analysis: built into NVRTC; the prelude defines what it provides\n"},
          {"target", "// kwb analysis: NVRTC's built-in <target>\n#include <nv/target>\n"}};
}

bool prelude_fits(std::string_view source) {
  for (const auto& h : included_headers(source))
    if (!k_fitting.contains(h)) return false;
  return true;
}

bool prelude_fp(std::string_view source) {
  for (const char* h : {"cuda_fp16", "cuda_bf16", "cuda_fp8", "mma.h"})
    if (source.find(h) != std::string_view::npos) return true;
  return false;
}

}  // namespace kwb::analysis
