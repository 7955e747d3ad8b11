#pragma once
// Seeds of an evaluation: secret (getrandom) by default; a fixed --seed gives a reproducible
// sequence for debugging.
#include <cstdint>

#include "util/random.hpp"

namespace kwb::eval {

class SeedSource {
 public:
  explicit SeedSource(uint64_t fixed) : m_fixed(fixed != 0), m_rng(fixed) {}
  uint64_t next() { return m_fixed ? m_rng.next() : util::secret_seed(); }

 private:
  bool m_fixed;
  util::Rng m_rng;
};

}  // namespace kwb::eval
