// kwb-expect: op=vector_add status=time_limit reason="compilation exceeded the 2000 ms limit" args="--compile-timeout-ms 2000"
// Template instantiation that doubles at every level: 2^40 distinct instantiations.
#include <cstdint>
template <int D, class T>
struct Tree {
  static constexpr int64_t value = Tree<D - 1, Tree<D, T>*>::value + Tree<D - 1, const Tree<D, T>*>::value;
};
template <class T>
struct Tree<0, T> {
  static constexpr int64_t value = 1;
};
constexpr int64_t k_leaves = Tree<40, int>::value;
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
