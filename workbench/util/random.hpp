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
  uint64_t next();
  double uniform01();  // [0, 1)
  double normal();     // standard normal (Box-Muller)

 private:
  uint64_t m_s[4];
  double m_spare = 0;
  bool m_has_spare = false;
};

}  // namespace kwb::util
