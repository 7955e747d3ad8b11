#pragma once
// Keyed 64-bit checksums of large buffers, on every core (docs/evaluation.md "Anti-cheat rules",
// rule 3: inputs checksummed rather than compared against a private copy, which cost a copy and a
// second read of every input of every input set). Not cryptographic: the key is secret per input
// set, so a kernel cannot aim a change at a collision, and a change goes unseen with odds of about
// 2^-64.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "util/parallel.hpp"

namespace kwb::util {

namespace checksum_detail {

constexpr uint64_t k_p1 = 0x9E3779B185EBCA87ULL, k_p2 = 0xC2B2AE3D27D4EB4FULL, k_p3 = 0x165667B19E3779F9ULL;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline uint64_t mix_in(uint64_t acc, uint64_t w) { return rotl(acc + w * k_p2, 31) * k_p1; }
inline uint64_t avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= k_p2;
  h ^= h >> 29;
  h *= k_p3;
  return h ^ (h >> 32);
}

// Four independent lanes over 32-byte blocks (xxHash64's round), then the tail byte by byte.
inline uint64_t checksum_range(const unsigned char* p, size_t n, uint64_t seed) {
  uint64_t a = seed + k_p1 + k_p2, b = seed + k_p2, c = seed, d = seed - k_p1;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    a = mix_in(a, w[0]);
    b = mix_in(b, w[1]);
    c = mix_in(c, w[2]);
    d = mix_in(d, w[3]);
  }
  uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + uint64_t(n);
  for (; i < n; ++i) h = mix_in(h, p[i]);
  return avalanche(h);
}

}  // namespace checksum_detail

inline uint64_t keyed_checksum(const void* data, size_t bytes, uint64_t key) {
  using namespace checksum_detail;
  const auto* p = static_cast<const unsigned char*>(data);
  const size_t chunks = (bytes + k_parallel_bytes - 1) / k_parallel_bytes;
  if (chunks <= 1) return checksum_range(p, bytes, key);
  std::vector<uint64_t> parts(chunks);
  parallel_chunks(chunks, [&](size_t k) {
    size_t at = k * k_parallel_bytes;
    parts[k] = checksum_range(p + at, std::min(k_parallel_bytes, bytes - at), key ^ (uint64_t(k) * k_p3));
  });
  uint64_t h = key ^ uint64_t(bytes);
  for (uint64_t v : parts) h = avalanche(mix_in(h, v));
  return h;
}

}  // namespace kwb::util
