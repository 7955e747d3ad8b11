#pragma once
// Trusted input generation: fills a tensor from a spec Generator with a seeded Rng. The generator
// must be resolved for the workload (spec::resolve_generator: bounds written as expressions
// evaluated, offsets and distinct draws checked to be possible).
#include <cstddef>

#include "core/spec.hpp"
#include "util/random.hpp"

namespace kwb::eval {

// Elements are generated in fixed chunks of k_fill_chunk, each from its own generator seeded by
// (seed drawn from `rng`, chunk index), on as many threads as the machine has: the values
// depend only on the seed, never on the thread count.
constexpr size_t k_fill_chunk = 1 << 20;
void fill_tensor(void* data, core::DType dtype, size_t count, const core::Generator& gen, util::Rng& rng);
// The same from a seed drawn beforehand (one draw of `rng` is what fill_tensor takes): the same
// tensor can be generated again from it. `row_length`: the tensor's last dimension, for generators
// drawing distinct values per row (0: the whole tensor is one row). Offsets, distinct and
// permutation tensors are filled in one pass (they are index tensors: small).
void fill_tensor_seeded(void* data, core::DType dtype, size_t count, const core::Generator& gen, uint64_t seed,
                        size_t row_length = 0);

}  // namespace kwb::eval
