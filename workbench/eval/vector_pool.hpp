#pragma once
// Large scratch vectors of the trusted side (expected outputs, private copies) kept for the next
// workload or evaluation: a fresh vector of hundreds of MB costs page faults and zeroing, tens of
// ms each time on the H200's host. The pool keeps at most k_pool_bytes in all (the daemon holds
// that much between evaluations); smaller vectors are not worth keeping.
//
// BasicVectorPool is one pool (tests make their own, so none depends on what another left);
// VectorPool<T> is the process-wide one the harness uses.
#include <cstddef>
#include <mutex>
#include <vector>

namespace kwb::eval {

inline constexpr size_t k_pool_bytes = size_t(2) << 30;
inline constexpr size_t k_pool_min_bytes = size_t(1) << 20;

template <class T>
class BasicVectorPool {
 public:
  explicit BasicVectorPool(size_t max_bytes = k_pool_bytes) : m_max_bytes(max_bytes) {}
  BasicVectorPool(const BasicVectorPool&) = delete;
  BasicVectorPool& operator=(const BasicVectorPool&) = delete;

  // A vector of `count` elements (values unspecified where it was recycled): the smallest kept
  // vector that holds `count`, else a new one.
  std::vector<T> take(size_t count) {
    std::vector<T> v;
    {
      std::lock_guard lock(m_mutex);
      size_t best = m_free.size();
      for (size_t i = 0; i < m_free.size(); ++i)
        if (m_free[i].capacity() >= count && (best == m_free.size() || m_free[i].capacity() < m_free[best].capacity()))
          best = i;
      if (best < m_free.size()) {
        v = std::move(m_free[best]);
        m_free.erase(m_free.begin() + long(best));
        m_bytes -= v.capacity() * sizeof(T);
      }
    }
    v.resize(count);
    return v;
  }
  void give(std::vector<T>&& v) {
    const size_t bytes = v.capacity() * sizeof(T);
    if (bytes < k_pool_min_bytes) return;
    std::lock_guard lock(m_mutex);
    m_free.push_back(std::move(v));
    m_bytes += bytes;
    while (m_bytes > m_max_bytes) {  // drop the oldest
      m_bytes -= m_free.front().capacity() * sizeof(T);
      m_free.erase(m_free.begin());
    }
  }
  // `v` holds `count` elements, recycled from the pool if it must grow.
  void fit(std::vector<T>& v, size_t count) {
    if (v.size() == count) return;
    if (v.capacity() >= count) return v.resize(count);
    give(std::move(v));
    v = take(count);
  }
  size_t bytes() const {
    std::lock_guard lock(m_mutex);
    return m_bytes;
  }

 private:
  const size_t m_max_bytes;
  mutable std::mutex m_mutex;
  std::vector<std::vector<T>> m_free;
  size_t m_bytes = 0;
};

// The process-wide pool of T vectors.
template <class T>
class VectorPool {
 public:
  static std::vector<T> take(size_t count) { return shared().take(count); }
  static void give(std::vector<T>&& v) { shared().give(std::move(v)); }
  static void fit(std::vector<T>& v, size_t count) { shared().fit(v, count); }
  static BasicVectorPool<T>& shared() {
    static BasicVectorPool<T> pool;
    return pool;
  }
};

}  // namespace kwb::eval
