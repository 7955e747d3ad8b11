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

// The set comparison rule of an index output (docs/specs.md "Set outputs"), e.g. top-k: along its
// last dimension, each row of the index tensor selects elements of the same row of input `of`;
// ties make several selections right. A row is right when its indices are distinct, in range, and
// select values that match the expected selection as a multiset (within `values`' tolerance,
// or, without `values`, the tolerance of exact equality); with `values`, that output's rows must
// match the expected values as a multiset and each index must point at an element of `of` equal
// (within `values`' tolerance) to the value reported beside it.
struct SetRule {
  std::string of;      // the input the indices point into (its last dimension)
  std::string values;  // optional: the output that reports the selected values ("" when none)
};

struct TensorSpec {
  std::string name;
  Role role = Role::in;
  std::vector<std::string> shape;  // one expression per dimension, row-major
  // Outputs: whether every element must be finite (checked by `kwb spec check`). Unset: finite
  // under the distributions without non-finite or extreme specials (docs/specs.md).
  std::optional<bool> finite;
  // A variant may omit it (docs/specs.md "Optional tensors"): variants that give it no dtype do not
  // have it (it is absent from their entry point, the reference's arguments and the arena).
  bool optional = false;
  std::optional<SetRule> set;  // index outputs compared as a set (top-k)
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

  // Whether the variant has tensor `name` (an optional tensor it gives no dtype is absent).
  bool has(const std::string& name) const { return dtypes.find(name) != dtypes.end(); }
};

// How the values of one input tensor are drawn (docs/specs.md "Distributions").
struct Generator {
  // "uniform" | "normal" | "int_uniform" | "constant" | "offsets" | "distinct" | "permutation"
  std::string kind;
  double lo = 0, hi = 1;     // uniform [lo, hi); int_uniform and distinct [lo, hi] inclusive
  double mean = 0, stddev = 1;  // normal
  double value = 0;          // constant
  double specials_fraction = 0;  // share of elements replaced by a special value
  std::vector<std::string> specials;  // "nan" "inf" "-inf" "+0" "-0" "denormal" "max" "lowest"
  // offsets: a sorted 1-D tensor [0, ..., end] whose consecutive differences (lengths) are drawn in
  // [min_length, max_length] (cu_seqlens of a ragged batch).
  double end = 0, min_length = 0, max_length = 0;
  bool per_row = false;  // distinct, permutation: distinct within each row (last dimension)
  // Integer fields written as expressions over the params (`"hi": "vocab - 1"`), by field name
  // ("lo", "hi", "end", "min_length", "max_length"): evaluated per workload by
  // spec::resolve_generator, which writes the numeric field above. Empty once resolved.
  std::map<std::string, std::string> bounds;
};

// A named input case: one generator per input tensor. Test workloads run under every
// distribution (each with its own secret seed); bench workloads under the first.
struct Distribution {
  std::string name;
  std::string note;
  std::map<std::string, Generator> tensors;
};

// A floating-point scalar of the op (eps, theta, a scale), passed to the entry point as a double
// after the int64 params (docs/specs.md "Scalars").
struct ScalarSpec {
  std::string name;
  std::optional<double> value;  // the value of workloads that give none
};

struct Workload {
  std::string name;
  std::map<std::string, int64_t> params;
  std::map<std::string, double> scalars;  // a value for every declared scalar
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

// One scalar's range for drawn shapes: finite doubles lo..hi, inclusive (lo == hi fixes it).
struct ScalarRange {
  std::string scalar;
  double lo = 0, hi = 0;
};

// Fresh test shapes (docs/specs.md "Shapes"): every evaluation draws `count` test workloads from
// the ranges with its secret seed, each meeting every constraint and the element cap.
struct ShapeDraws {
  std::vector<ParamRange> ranges;        // one per spec param, in spec param order
  std::vector<ScalarRange> scalars;      // one per spec scalar, in spec scalar order
  std::vector<std::string> constraints;  // conditions (`cols % 8 == 0`) every drawn shape meets
  int count = 3;                         // test workloads drawn per evaluation
  int64_t max_elements = int64_t{1} << 20;  // elements of all tensors together, per drawn shape
};

struct Spec {
  std::string op;
  int version = 1;
  std::string summary;
  std::vector<std::string> params;  // int64 scalars, in entry-point order after the tensors
  std::vector<ScalarSpec> scalars;  // doubles, in entry-point order after the params
  std::vector<TensorSpec> tensors;  // in entry-point order
  std::vector<Variant> variants;
  std::vector<Distribution> distributions;
  std::vector<Workload> test_workloads;
  std::vector<Workload> bench_workloads;
  bool deterministic = true;  // false: repeated runs may differ within tolerance (atomics order)
  // The least alignment, in bytes, of every tensor's first element that a caller guarantees
  // (docs/specs.md "Alignment"): a power of two up to 64, raised per tensor to its dtype's size;
  // 0 when the spec gives none (each tensor: its dtype's size).
  int alignment = 0;
  static constexpr int k_max_alignment_bytes = 64;
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
  // The tensors variant `v` has, in spec order (every tensor but the optional ones it omits).
  std::vector<const TensorSpec*> tensors_of(const Variant& v) const;
  std::vector<std::string> scalar_names() const;
};

std::string_view role_name(Role r);

// The alignment a tensor of `dtype` is guaranteed under `spec`: the spec's, at least the dtype's size.
inline size_t tensor_alignment(const Spec& spec, DType dtype) {
  return spec.alignment > int(dtype_size(dtype)) ? size_t(spec.alignment) : dtype_size(dtype);
}

}  // namespace kwb::core
