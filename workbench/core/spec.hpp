#pragma once
// Domain types of an operator spec (docs/specs.md describes the file format).
// Expressions (shapes, roofline) are kept as validated source text; kwb::spec evaluates them.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "core/dtype.hpp"
#include "core/launch_plan.hpp"

namespace kwb::core {

enum class Role { in, out, inout };

struct TensorSpec {
  std::string name;
  Role role = Role::in;
  std::vector<std::string> shape;  // one expression per dimension, row-major
  // Outputs: whether every element must be finite (checked by `kwb spec check`). Unset: finite
  // under the distributions without non-finite or extreme specials (docs/specs.md).
  std::optional<bool> finite;
};

struct Tolerance {
  bool exact = false;  // integers: always exact
  double atol = 0;     // |got - want| <= atol + rtol * |want|
  double rtol = 0;
};

struct Roofline {
  std::string bytes;  // expression: minimal bytes moved
  std::string flops;  // expression: useful floating-point operations
};

struct Variant {
  std::string name;   // "f32", "bf16", "u8", ...
  std::string entry;  // extern "C" symbol, e.g. "kwb_softmax_f32"
  std::map<std::string, DType> dtypes;        // per tensor
  std::map<std::string, Tolerance> tolerance;  // per output tensor, no defaults
  Roofline roofline;
};

// How the values of one input tensor are drawn.
struct Generator {
  std::string kind;          // "uniform" | "normal" | "int_uniform" | "constant"
  double lo = 0, hi = 1;     // uniform [lo, hi); int_uniform [lo, hi] inclusive
  double mean = 0, stddev = 1;  // normal
  double value = 0;          // constant
  double specials_fraction = 0;  // share of elements replaced by a special value
  std::vector<std::string> specials;  // "nan" "inf" "-inf" "+0" "-0" "denormal" "max" "lowest"
};

// A named input case: one generator per input tensor. Test workloads run under every
// distribution (each with its own secret seed); bench workloads under the first.
struct Distribution {
  std::string name;
  std::string note;
  std::map<std::string, Generator> tensors;
};

struct Workload {
  std::string name;
  std::map<std::string, int64_t> params;
  std::vector<std::string> backends;  // empty: every backend
  std::string label;                  // bench: what real use this size stands for
  bool drawn = false;                 // a test workload drawn from the spec's shapes for one evaluation

  bool runs_on(std::string_view backend) const {
    if (backends.empty()) return true;
    for (const auto& b : backends)
      if (b == backend) return true;
    return false;
  }
  bool runs_on(Backend b) const { return runs_on(backend_name(b)); }
};

// A vendor baseline (cuBLAS, CUB, ...): a trusted `cuda-launcher` source next to spec.json that
// defines the entry symbols of some variants. It is checked like a candidate before it is timed.
struct Baseline {
  std::string name;     // unique, e.g. "cublas"
  std::string file;     // relative to the spec's folder, e.g. "baseline_cublas.cu"
  std::string backend;  // "cuda-launcher"
  std::string note;     // what it is (library, call)
  std::vector<std::string> variants;  // names of spec variants whose entries the file defines
  std::vector<std::string> flags;     // extra nvcc arguments, one argv item each (e.g. "-lcublas")
  std::string source;                 // the file's contents, read when the spec is loaded
};

// An optional GPU reference (docs/specs.md "GPU references"): plain CUDA kernels in a file next to
// spec.json that write f64 outputs, launched per variant by a launch plan (docs/cuda.md) written in
// spec.json. In CUDA evaluations on a device it computes the expected outputs of the bench
// workloads it judges, once it agreed with the CPU reference (which stays the definition) on
// every test workload of the same evaluation, under every distribution.
struct GpuReferenceSpec {
  std::string file;    // relative to the spec's folder, e.g. "reference.cu"
  std::string source;  // its text, read when the spec is loaded
  std::string note;
  std::map<std::string, LaunchPlan> plans;  // per variant, bound to the spec; others: CPU only
  std::map<std::string, std::vector<std::string>> launch;  // per variant, the plan lines as written
  std::vector<std::string> workloads;       // bench workloads it judges; empty: every bench workload

  // Whether it computes the expected outputs of bench workload `w` of `variant`.
  bool judges(const std::string& variant, const Workload& w) const {
    if (!plans.contains(variant)) return false;
    if (workloads.empty()) return true;
    for (const auto& name : workloads)
      if (name == w.name) return true;
    return false;
  }
};

// One param's range for drawn shapes: integers lo..hi, inclusive, 1 <= lo <= hi.
struct ParamRange {
  std::string param;
  int64_t lo = 1, hi = 1;
};

// Fresh test shapes (docs/specs.md "Shapes"): every evaluation draws `count` test workloads from
// the ranges with its secret seed, each meeting every constraint and the element cap.
struct ShapeDraws {
  std::vector<ParamRange> ranges;        // one per spec param, in spec param order
  std::vector<std::string> constraints;  // conditions (`cols % 8 == 0`) every drawn shape meets
  int count = 3;                         // test workloads drawn per evaluation
  int64_t max_elements = int64_t{1} << 20;  // elements of all tensors together, per drawn shape
};

struct Spec {
  std::string op;
  int version = 1;
  std::string summary;
  std::vector<std::string> params;  // int64 scalars, in entry-point order after the tensors
  std::vector<TensorSpec> tensors;  // in entry-point order
  std::vector<Variant> variants;
  std::vector<Distribution> distributions;
  std::vector<Workload> test_workloads;
  std::vector<Workload> bench_workloads;
  bool deterministic = true;  // false: repeated runs may differ within tolerance (atomics order)
  std::vector<Baseline> baselines;  // optional vendor baselines
  std::optional<ShapeDraws> shapes;  // optional: param ranges for drawn test workloads
  std::optional<GpuReferenceSpec> gpu_reference;  // optional: judges large bench workloads on the GPU
  // Optional starting points for candidates, shipped in the spec's folder (docs/specs.md
  // "Templates"): by backend ("cpu", "cuda", "cuda-launcher"), then variant name.
  struct Template {
    std::string file;    // e.g. "template.f32.cpp", relative to the spec's folder
    std::string source;  // its contents, read when the spec is loaded
  };
  std::map<std::string, std::map<std::string, Template>> templates;
  std::filesystem::path file;  // where it was loaded from
  // sha256 of what the spec means (spec/digest.hpp): spec.json without its descriptive text, and
  // the reference sources. Two specs of one op and version must have the same digest.
  std::string digest;

  const Variant* find_variant(std::string_view name) const;
  const TensorSpec* find_tensor(std::string_view name) const;
};

std::string_view role_name(Role r);

}  // namespace kwb::core
