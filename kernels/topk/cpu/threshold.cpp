// topk, CPU: per row, the candidates above a floor behind a vectorised filter. The row is read in
// 32-element chunks; once a floor is known, a chunk whose maximum (16 independent lanes, then one
// reduction) does not exceed it is skipped whole, so most chunks cost a few vector max and one
// compare. Elements above the floor are appended to a buffer of 4k; when it fills, nth_element
// keeps its k largest and the k-th becomes the new floor (appending is O(1): no sorted insertion,
// which cost more than the scan for k = 50). At the end the buffer's k largest are written in
// descending order. Ties keep whichever nth_element keeps (any choice among ties is right: the
// outputs are compared as a set), the same on every call.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

constexpr int kLanes = 16;
constexpr int64_t kChunk = 32;  // multiple of kLanes

struct Candidate {
  float value;
  int32_t index;
};

bool larger(const Candidate& a, const Candidate& b) { return a.value > b.value; }

struct Best {
  std::vector<Candidate> held;  // capacity 4k
  int64_t k = 0;
  bool have_floor = false;
  float floor = 0.0f;

  void keep_k_largest() {
    std::nth_element(held.begin(), held.begin() + (k - 1), held.end(), larger);
    held.resize(size_t(k));
    floor = held[size_t(k - 1)].value;
    for (const auto& c : held) floor = c.value < floor ? c.value : floor;
    have_floor = true;
  }

  void offer(float v, int64_t c) {
    if (have_floor && !(v > floor)) return;
    held.push_back({v, int32_t(c)});
    if (held.size() == size_t(4 * k)) keep_k_largest();
  }
};

// The largest of kChunk values: kLanes independent lanes (one SIMD register's worth per step).
inline float chunk_max(const float* __restrict p) {
  float m[kLanes];
  for (int l = 0; l < kLanes; ++l) m[l] = p[l];
  for (int64_t i = kLanes; i < kChunk; i += kLanes)
    for (int l = 0; l < kLanes; ++l) m[l] = p[i + l] > m[l] ? p[i + l] : m[l];
  float out = m[0];
  for (int l = 1; l < kLanes; ++l) out = m[l] > out ? m[l] : out;
  return out;
}

}  // namespace

extern "C" void kwb_topk_f32(const float* x, float* values, int32_t* indices, int64_t rows, int64_t cols, int64_t k) {
  Best best;
  best.k = k;
  best.held.reserve(size_t(4 * k));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    best.held.clear();
    best.have_floor = false;
    int64_t c = 0;
    for (; c + kChunk <= cols; c += kChunk) {
      if (best.have_floor && !(chunk_max(row + c) > best.floor)) continue;
      for (int64_t i = 0; i < kChunk; ++i) best.offer(row[c + i], c + i);
    }
    for (; c < cols; ++c) best.offer(row[c], c);
    if (best.held.size() > size_t(k)) best.keep_k_largest();  // k <= cols: at least k were offered
    std::sort(best.held.begin(), best.held.end(), larger);
    for (int64_t j = 0; j < k; ++j) {
      values[r * k + j] = best.held[size_t(j)].value;
      indices[r * k + j] = best.held[size_t(j)].index;
    }
  }
}
