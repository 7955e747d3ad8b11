// embedding bf16, CPU: each token's table row copied with memcpy (the C library's widest vector
// moves), while the start of the next token's row is prefetched: a gather from a table far larger
// than the caches, where the first lines of each row are the latency a linear copy does not hide.
#include <cstdint>
#include <cstring>

extern "C" void kwb_embedding_bf16(const uint16_t* table, const int32_t* ids, uint16_t* out, int64_t tokens,
                                   int64_t vocab, int64_t dim) {
  (void)vocab;  // ids are in [0, vocab) by the spec
  const size_t row_bytes = size_t(dim) * sizeof(uint16_t);
  const size_t ahead = row_bytes < 512 ? row_bytes : 512;  // the first 8 cache lines of the next row
  for (int64_t t = 0; t < tokens; ++t) {
    if (t + 1 < tokens) {
      const char* next = reinterpret_cast<const char*>(table + int64_t(ids[t + 1]) * dim);
      for (size_t b = 0; b < ahead; b += 64) __builtin_prefetch(next + b);
    }
    std::memcpy(out + t * dim, table + int64_t(ids[t]) * dim, row_bytes);
  }
}
