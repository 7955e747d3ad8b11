#pragma once
// Randomness: secret seeds from the kernel, and a fast deterministic generator for inputs.
#include <cstdint>
#include <string>

namespace kwb::util {

// 64 bits from getrandom(2): seeds the candidate cannot know.
uint64_t secret_seed();
// Hex string of `bytes` random bytes (ids, temp names).
std::string random_hex(int bytes);

// xoshiro256** seeded through splitmix64: deterministic for a given seed.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  // Inline: input generation calls these for every element of bench tensors (hundreds of MB).
  uint64_t next() {
    const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    const uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
  }
  double uniform01() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal();  // standard normal (Box-Muller)

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t m_s[4];
  double m_spare = 0;
  bool m_has_spare = false;
};

}  // namespace kwb::util
