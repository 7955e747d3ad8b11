#include "util/random.hpp"

#include <sys/random.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace kwb::util {

uint64_t secret_seed() {
  uint64_t v = 0;
  char* p = reinterpret_cast<char*>(&v);
  size_t got = 0;
  while (got < sizeof v) {
    ssize_t n = ::getrandom(p + got, sizeof v - got, 0);
    if (n < 0) throw std::runtime_error("getrandom failed");
    got += size_t(n);
  }
  return v;
}

std::string random_hex(int bytes) {
  std::string out;
  char buf[3];
  for (int i = 0; i < bytes; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", unsigned(secret_seed() & 0xff));
    out += buf;
  }
  return out;
}

static uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed) {
  for (auto& s : m_s) s = splitmix64(seed);
}

double Rng::normal() {
  // Box-Muller gives two independent normals per pair of uniforms: keep the second.
  if (m_has_spare) {
    m_has_spare = false;
    return m_spare;
  }
  double u1 = uniform01(), u2 = uniform01();
  if (u1 < 1e-300) u1 = 1e-300;
  double r = std::sqrt(-2.0 * std::log(u1)), a = 6.283185307179586 * u2;
  m_spare = r * std::sin(a);
  m_has_spare = true;
  return r * std::cos(a);
}

}  // namespace kwb::util
