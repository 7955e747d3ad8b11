// A wrong embedding kernel (tests/integration/test_decoder_ops.cpp): reads the table as
// [dim, vocab] (column ids[t]) instead of [vocab, dim].
#include <cstdint>

extern "C" void kwb_embedding_bf16(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t tokens,
                                   int64_t vocab, int64_t dim) {
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t c = 0; c < dim; ++c) out[t * dim + c] = table[c * vocab + ids[t]];
}
