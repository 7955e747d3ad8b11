#pragma once
// Private to kwb::speccheck: one run of a reference on one workload, distribution and variant,
// with its inputs drawn (eval::fill_tensor_seeded) and its outputs poisoned beforehand.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "eval/reference.hpp"
#include "util/error.hpp"

namespace kwb::speccheck::detail {

using Buffers = std::map<std::string, std::vector<unsigned char>>;  // by tensor, in the variant's dtypes
using Outputs = std::map<std::string, std::vector<double>>;         // by out/inout tensor

struct Case {
  const core::Spec* spec = nullptr;
  size_t variant_index = 0, workload_index = 0;
  const core::Variant* variant = nullptr;
  const core::Workload* workload = nullptr;  // a test workload (published, or drawn from the spec's shapes)
  const core::Distribution* distribution = nullptr;
  std::map<std::string, std::vector<int64_t>> shapes;  // every tensor's
  std::map<std::string, size_t> counts;                // elements per tensor

  // "workloads.test[2] '3x31', variant f32, distribution normal"
  std::string context() const;
  // The JSON path of tensor `name`: "tensors[1]".
  std::string tensor_path(const std::string& name) const;
};

// Poisons: a quiet NaN with a payload, and a finite value no reference computes by chance.
constexpr uint64_t k_poison_nan = 0x7ff80000deadbeefull;
constexpr uint64_t k_poison_finite = 0xc0c3a5a5a5a5a5a5ull;  // -10059.29..., every mantissa bit used

// Shapes of every tensor for the case; false when one does not evaluate (the loader said so).
bool fill_shapes(Case& c);
// The inputs (in and inout tensors the variant has) from `seed`, one seed per tensor drawn from it,
// with the generators resolved for the workload (an error blames the spec: the loader resolved
// them for every published workload).
util::Result<Buffers> draw_inputs(const Case& c, uint64_t seed);
// The same inputs with every finite, non-zero f32/f64 element moved one ulp away from zero
// (staying finite); `moved` is false when no element could be (integer, bf16, f16 inputs).
Buffers perturb_inputs(const Case& c, const Buffers& inputs, bool& moved);
// Outputs pre-filled with the poison's bits, then the reference's call.
util::Result<Outputs> run_reference(eval::Reference& ref, const Case& c, const Buffers& inputs, uint64_t poison_bits);

uint64_t bits_of(double v);
// "[0, 3]"
std::string index_text(const std::vector<int64_t>& shape, size_t flat);

}  // namespace kwb::speccheck::detail
