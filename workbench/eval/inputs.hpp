#pragma once
// Trusted input generation: fills a tensor from a spec Generator with a seeded Rng.
#include <cstddef>

#include "core/spec.hpp"
#include "util/random.hpp"

namespace kwb::eval {

void fill_tensor(void* data, core::DType dtype, size_t count, const core::Generator& gen, util::Rng& rng);

}  // namespace kwb::eval
