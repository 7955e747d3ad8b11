#pragma once
// The C prototypes a candidate implements, derived from the spec (docs/specs.md "The contract:
// prototypes and templates"): the entry point of the cpu and cuda-launcher forms, and the
// parameters a cuda-form kernel takes for its launch plan's arguments. The same code writes them
// into the spec's JSON (GET /v1/specs/{op}) and into the analyzer's entry-signature findings, so
// the two never disagree.
#include <string>
#include <vector>

#include "core/launch_plan.hpp"
#include "core/spec.hpp"

namespace kwb::spec {

// The C type a spec dtype is passed as: "float", "uint16_t" (bf16/f16 on the host),
// "__nv_bfloat16" / "__half" (CUDA), ...
std::string c_type_name(core::DType t, bool cuda);

struct EntryParam {
  enum class Kind { tensor, scalar, stream, workspace };
  Kind kind = Kind::tensor;
  std::string name;
  std::string c_type;  // tensors: the element type; scalars: "int64_t" or "long long" (params), "double"
  bool is_const = false;
  // "const float*", "int64_t", "cudaStream_t", "void*"
  std::string type_text() const;
  // "const float* x"
  std::string text() const;
};

// How a backend passes one argument. `kernel`: a cuda-form __global__ kernel (compiled by NVRTC,
// which has no <cstdint>: params are `long long`, the same 64-bit type as int64_t).
EntryParam tensor_param(const core::TensorSpec& t, const core::Variant& v, bool cuda);
EntryParam scalar_param(const std::string& name, bool kernel);
// A floating-point scalar of the spec ("scalars"): a double on every backend.
EntryParam real_param(const std::string& name);

// The entry point's parameters on `backend` ("cpu", "cuda", "cuda-launcher"): the variant's tensors
// in spec order (pointers, const for inputs; optional tensors it omits are left out), the params as
// 64-bit integers, the scalars as doubles, and for cuda-launcher a trailing `cudaStream_t stream`. For "cuda" these are a kernel's parameters when its launch
// passes every tensor and param in spec order (the default plan).
std::vector<EntryParam> entry_params(const core::Spec& spec, const core::Variant& v, const std::string& backend);

// A cuda-form kernel's parameters for one launch's arguments, in order (tensor indices count the
// variant's tensors).
std::vector<EntryParam> launch_params(const core::Spec& spec, const core::Variant& v, const std::vector<core::LaunchArg>& args);

// "void kwb_softmax_f32(const float* x, float* y, int64_t rows, int64_t cols)", with
// "__global__ " in front for a kernel (no extern "C": callers add it where it belongs).
std::string prototype_text(const std::string& name, const std::vector<EntryParam>& params, bool kernel);

}  // namespace kwb::spec
