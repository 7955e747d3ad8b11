// A wrong embedding kernel (tests/integration/test_decoder_ops.cpp): keeps ids as 16-bit values,
// right for every vocabulary up to 65536 entries and wrong beyond (Llama 3's 128256).
#include <cstdint>
#include <cstring>

extern "C" void kwb_embedding_bf16(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t tokens,
                                   int64_t vocab, int64_t dim) {
  (void)vocab;
  for (int64_t t = 0; t < tokens; ++t) {
    const uint16_t id = uint16_t(ids[t]);
    std::memcpy(out + t * dim, table + int64_t(id) * dim, size_t(dim) * 2);
  }
}
