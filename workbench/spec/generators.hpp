#pragma once
// Input generators resolved for one workload (docs/specs.md "Distributions"): integer fields
// written as expressions over the params (`"hi": "vocab - 1"`) evaluated, and the generators whose
// values depend on the tensor's size (offsets, distinct, permutation) checked against it. The
// loader resolves every generator for every published workload and every drawn shape it checks,
// so an evaluation only fails here for a spec that changed under it.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "core/spec.hpp"
#include "util/error.hpp"

namespace kwb::spec {

// The range of values an integer dtype holds, as doubles (i64 within +-2^63).
std::pair<double, double> integer_dtype_range(core::DType t);

// Whether the generator needs resolve_generator before it draws (expressions, or a kind whose
// values depend on the tensor's size).
bool needs_resolving(const core::Generator& g);

// The generator of input `tensor` under distributions[`distribution`] for `params`: every bound
// evaluated, and checked: lo <= hi; values every variant's dtype of the tensor holds; enough
// distinct values for the tensor (distinct, permutation); offsets that can end at `end` with
// lengths in [min_length, max_length]. An error's `where` is the field's JSON path
// ("distributions[1].tensors.labels.hi") and its message names `workload` and the values.
util::Result<core::Generator> resolve_generator(const core::Spec& spec, size_t distribution, const std::string& tensor,
                                                const std::map<std::string, int64_t>& params,
                                                std::string_view workload);

// Every generator of distributions[`distribution`] resolved for `params` (the ones that need it;
// the others as written), by tensor; errors as resolve_generator's with the spec's file in front.
util::Result<std::map<std::string, core::Generator>> resolve_distribution(const core::Spec& spec, size_t distribution,
                                                                          const std::map<std::string, int64_t>& params,
                                                                          std::string_view workload);

// Index of `d` in spec.distributions (it must be one of them).
size_t distribution_index(const core::Spec& spec, const core::Distribution& d);

}  // namespace kwb::spec
