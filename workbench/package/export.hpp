#pragma once
// `kwb export` (docs/export.md): writes a CMake package that a C++ application builds and links
// as `kwb::kernels` — one function per exported op and variant, dispatching to the library's
// incumbent kernels (dispatch.json) with a CPU fallback, an example program that checks every
// function against the op's trusted reference, and find_package(kwb) support after install.
#include <filesystem>
#include <string>
#include <vector>

#include "spec/loader.hpp"
#include "util/error.hpp"

namespace kwb::package {

struct ExportRequest {
  // A checkout of the library: <op>/<backend>/<name>.{cpp,cu} (+ <name>.json) and dispatch.json.
  std::filesystem::path library_dir;
  const spec::Catalog* catalog = nullptr;  // required: the specs the kernels implement
  std::filesystem::path specs_dir;         // <op>/reference.cpp, copied for the example
  std::filesystem::path out_dir;           // absent or empty (or a previous export with `replace`)
  std::vector<std::string> backends = {"cpu", "cuda"};  // which dispatch entries to include
  std::vector<std::string> ops;                         // empty: every op in dispatch.json
  // Which incumbent to take when dispatch.json holds several device classes; both fall back to
  // "any". Empty cpu class: this machine's (library::host_cpu_class(), "cpu-x86_64-v3"), as
  // promotion records it. A CPU incumbent of an x86-64 level above 1 comes with the "any" kernel
  // as its fallback on CPUs below that level.
  std::string cpu_device_class;
  std::string cuda_device_class = "cuda-sm_90";
  // out_dir may hold a previous export (kwb-package.json): what an export writes is replaced whole,
  // the rest (build/, build-cuda/ and other top-level entries of the user's) is kept.
  bool replace = false;
};

struct ExportedVariant {
  std::string op, variant;
  std::string function;     // "softmax_f32": kwb::softmax_f32 in include/kwb/kernels.hpp
  std::string cpu_kernel;   // library path, "" when none
  std::string cuda_kernel;  // library path, "" when none
  size_t cuda_configs = 0;  // translation units compiled for the CUDA kernel
};

struct ExportReport {
  std::filesystem::path out_dir;
  std::vector<ExportedVariant> variants;  // sorted by function name
  std::vector<std::string> skipped;       // "histogram/u8/cuda-launcher: ..." entries left out, with why
  std::vector<std::string> files;         // package-relative paths written
};

// Checks everything first (dispatch entries against the catalog, kernel files, launch plans,
// recorded configs), then writes the package into a temporary sibling of out_dir and renames it
// into place, so a failed export leaves nothing behind. Errors name the file and field
// ("dispatch.json: softmax/f32/cpu/any: kernel 'softmax/cpu/x.cpp': no such file in the library").
util::Result<ExportReport> write_package(const ExportRequest& request);

}  // namespace kwb::package
