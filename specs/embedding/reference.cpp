// Trusted reference for embedding: out[t, c] = table[ids[t], c], each bf16 value as a double (the
// comparison is exact; NaN is compared as NaN). An id outside [0, vocab) is the spec's fault: the
// generator bounds every id by "vocab - 1".
#include <stdexcept>
#include <string>

#include "core/dtype.hpp"
#include "core/reference.hpp"

namespace kwb::reference {

void embedding(const core::ReferenceArgs& a) {
  const int64_t tokens = a.param("tokens"), vocab = a.param("vocab"), dim = a.param("dim");
  const uint16_t* table = a.in<uint16_t>("table");
  const int32_t* ids = a.in<int32_t>("ids");
  double* out = a.out("out");
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t id = ids[t];
    if (id < 0 || id >= vocab) throw std::invalid_argument("id " + std::to_string(id) + " outside the vocabulary");
    for (int64_t c = 0; c < dim; ++c) out[t * dim + c] = core::bf16_to_float(table[id * dim + c]);
  }
}

}  // namespace kwb::reference
