#pragma once
// Large scratch vectors of the trusted side (expected outputs, private copies) kept for the next
// workload or evaluation: a fresh vector of hundreds of MB costs page faults and zeroing, tens of
// ms each time on the H200's host. The pool keeps at most k_pool_bytes in all (the daemon holds
// that much between evaluations); smaller vectors are not worth keeping.
#include <cstddef>
#include <mutex>
#include <vector>

namespace kwb::eval {

inline constexpr size_t k_pool_bytes = size_t(2) << 30;
inline constexpr size_t k_pool_min_bytes = size_t(1) << 20;

template <class T>
class VectorPool {
 public:
  // A vector of `count` elements (values unspecified where it was recycled).
  static std::vector<T> take(size_t count) {
    std::vector<T> v;
    {
      std::lock_guard lock(s_mutex);
      size_t best = s_free.size();
      for (size_t i = 0; i < s_free.size(); ++i)
        if (s_free[i].capacity() >= count && (best == s_free.size() || s_free[i].capacity() < s_free[best].capacity()))
          best = i;
      if (best < s_free.size()) {
        v = std::move(s_free[best]);
        s_free.erase(s_free.begin() + long(best));
        s_bytes -= v.capacity() * sizeof(T);
      }
    }
    v.resize(count);
    return v;
  }
  static void give(std::vector<T>&& v) {
    const size_t bytes = v.capacity() * sizeof(T);
    if (bytes < k_pool_min_bytes) return;
    std::lock_guard lock(s_mutex);
    s_free.push_back(std::move(v));
    s_bytes += bytes;
    while (s_bytes > k_pool_bytes) {  // drop the oldest
      s_bytes -= s_free.front().capacity() * sizeof(T);
      s_free.erase(s_free.begin());
    }
  }
  // `v` holds `count` elements, recycled from the pool if it must grow.
  static void fit(std::vector<T>& v, size_t count) {
    if (v.size() == count) return;
    if (v.capacity() >= count) return v.resize(count);
    give(std::move(v));
    v = take(count);
  }

 private:
  static inline std::mutex s_mutex;
  static inline std::vector<std::vector<T>> s_free;
  static inline size_t s_bytes = 0;
};

}  // namespace kwb::eval
