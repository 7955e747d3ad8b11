// A wrong embedding kernel (tests/integration/test_decoder_ops.cpp): reads row ids[t] + 1 (kept
// inside the table), as a kernel that takes ids as 1-based would: right only on the last row.
#include <cstdint>
#include <cstring>

extern "C" void kwb_embedding_bf16(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t tokens,
                                   int64_t vocab, int64_t dim) {
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t id = ids[t] + 1 < vocab ? ids[t] + 1 : vocab - 1;
    std::memcpy(out + t * dim, table + id * dim, size_t(dim) * 2);
  }
}
