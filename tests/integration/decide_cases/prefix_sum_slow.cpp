// decide-noise case: the shipped prefix_sum plus a dependent chain of 3 LCG steps per element, about 3x slower: the incumbent of the bad-record replay.
#include <cstdint>

extern "C" void kwb_prefix_sum_i32(const int32_t* x, int32_t* y, int64_t n) {
  uint32_t s = 0;
  for (int64_t i = 0; i < n; ++i) {
    s += uint32_t(x[i]);
    y[i] = int32_t(s);
  }
  uint64_t v = uint64_t(n);  // a dependent LCG chain: no compiler folds or vectorises it
  for (int64_t i = 0; i < 3 * n; ++i) v = v * 6364136223846793005ull + 1442695040888963407ull;
  volatile uint64_t sink = v;
  (void)sink;
}
