#pragma once
// What an export contains, checked and resolved before any file is generated: one Target per
// exported function (op + variant) with its CPU and/or CUDA incumbent from dispatch.json.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_plan.hpp"
#include "core/spec.hpp"
#include "library/region.hpp"
#include "package/export.hpp"

namespace kwb::package {

// A CPU kernel of a target, compiled in a translation unit of its own (cpu/<function>[_baseline].cpp)
// that includes the library's file with its entry renamed to `symbol`, so that a target's primary
// and baseline kernels (the same extern "C" entry) link side by side.
struct CpuKernel {
  std::string path;   // library path, e.g. "softmax/cpu/three_pass.cpp"
  std::string entry;  // its extern "C" symbol in the library
  std::string device_class;  // the dispatch entry's class, as recorded ("cpu-x86_64" for a legacy one)
  // The x86-64 level it was compiled for and needs at run time (library/device_class.hpp): N of
  // cpu-x86_64-v<N>, the exported class's for a legacy cpu-x86_64 entry; 0 for "any" and other
  // architectures (no requirement).
  int level = 0;
  std::vector<std::string> flags;  // the flags it was promoted with (its <name>.json), less -march/-mtune/-mcpu
  std::string unit;    // cpu/<function>.cpp or cpu/<function>_baseline.cpp
  std::string symbol;  // <entry>__<unit stem>: what the unit exports
  // The alignment in bytes it needs of every tensor (its <name>.json "alignment"; 0: what the spec
  // guarantees): the dispatcher checks the pointers before it calls it (docs/export.md).
  size_t alignment = 0;
};

struct CudaConfig {
  std::map<std::string, int64_t> tune;  // one value per tunable
  std::string label;                    // "BLOCK=256" or "default"
  std::string table;                    // kwb_cuda_<function>_cfg<N>: the kernels' host stubs, by launch
  std::string file;                     // cuda/<function>_cfg<N>.cu
};

// A measured workload of the dispatch entry: calls nearest to its element count use its config.
struct ConfigPick {
  std::string workload;
  double elements = 0;  // product of the workload's params
  size_t config = 0;
};

struct CudaKernel {
  std::string path;  // library path, e.g. "softmax/cuda/block_row.cu"
  std::string device_class;
  core::LaunchPlan plan;  // bound to the spec (argument kinds and indices filled)
  std::vector<CudaConfig> configs;
  std::vector<ConfigPick> picks;  // empty: configs[0] for every call
  size_t alignment = 0;           // as CpuKernel's
};

// A CPU kernel of a shape region (docs/library.md "Shape regions"): the dispatcher calls it when the
// params lie in its region (and the CPU has its level, the tensors its alignment), before `cpu`.
struct RegionalCpu {
  library::Region region;
  CpuKernel kernel;
  size_t order = 0;  // its place in the dispatch's lookup (library::Dispatch::serving)
};

struct Target {
  const core::Spec* spec = nullptr;
  const core::Variant* variant = nullptr;
  std::string function;  // kwb::<function>
  std::optional<CpuKernel> cpu;
  // The "any" kernel, when `cpu` needs an x86-64 level above the baseline: called on CPUs below it.
  std::optional<CpuKernel> cpu_baseline;
  std::vector<RegionalCpu> cpu_regions;  // in lookup order, tried before `cpu`
  std::optional<CudaKernel> cuda;
};

// Every CPU kernel of a target: cpu, cpu_baseline, then the regional ones.
inline std::vector<const CpuKernel*> cpu_kernels(const Target& t) {
  std::vector<const CpuKernel*> out;
  if (t.cpu) out.push_back(&*t.cpu);
  if (t.cpu_baseline) out.push_back(&*t.cpu_baseline);
  for (const auto& r : t.cpu_regions) out.push_back(&r.kernel);
  return out;
}

struct Package {
  std::vector<Target> targets;                       // sorted by function
  std::map<std::string, std::string> kernel_sources;  // library path -> text
  std::map<std::string, std::string> references;      // op -> reference.cpp text
  std::vector<std::string> skipped;
  std::string dispatch_json;  // the library's dispatch.json, kept in the package for provenance
  std::string cpu_device_class;  // the CPU class exported (ExportRequest::cpu_device_class or this machine's)
};

// Reads dispatch.json and the kernels it names from the library tree and checks them.
util::Result<Package> resolve_package(const ExportRequest& request);

// Every generated file: package-relative path -> content.
util::Result<std::map<std::string, std::string>> render_package(const Package& package);

// "const float* x, float* y, int64_t rows, int64_t cols": a target's parameters (tensors in spec
// order, then the int64 params), as its function and its CPU entry point take them.
std::string signature(const Target& target);
// "x, y, rows, cols": the same names, for a call.
std::string argument_names(const Target& target);

// Pieces of render_package, one file each (gen_*.cpp).
std::string render_header(const Package& package);
util::Result<std::string> render_dispatcher(const Target& target);
std::string render_cpu_unit(const Target& target, const CpuKernel& kernel, std::string_view kernel_source);
std::string render_cuda_config(const Target& target, const CudaConfig& config, std::string_view kernel_source);
std::string render_runtime_hpp();
std::string render_runtime_cpp();
util::Result<std::string> render_example(const Package& package);
std::string render_example_check_hpp();
// Pieces of example/check.hpp (gen_example_draw.cpp): the input generators, the set comparison.
std::string example_draw_text();
std::string example_set_text();
std::string render_cmake(const Package& package);
std::string render_config_in();
std::string render_readme(const Package& package);
std::string render_manifest(const Package& package);

}  // namespace kwb::package
