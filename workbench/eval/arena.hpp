#pragma once
// The shared buffers of one evaluation: a memfd the trusted side lays out, fills and checks,
// and the runner maps. Every tensor sits between two guard zones (canaries) filled with a
// pattern derived from a secret seed; any byte changed there is an out-of-bounds write.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "util/error.hpp"

namespace kwb::eval {

struct TensorSlot {
  std::string name;
  core::Role role = core::Role::in;
  core::DType dtype = core::DType::f32;
  std::vector<int64_t> shape;
  size_t count = 0;   // elements
  size_t bytes = 0;   // count * dtype size
  size_t offset = 0;  // of the first data byte in the arena
  // Bytes past a 64-byte boundary at which the data starts (SharedArena::layout): 0 for aligned
  // placement; validation places each tensor at just the alignment its spec guarantees
  // (WorkloadHarness::place_at_least_alignment), so that a kernel assuming more is caught.
  size_t misalign = 0;
};

// Whether `a` and `b` place the same tensors (names, roles, dtypes, shapes): a layout that can be
// kept, offsets and mappings included.
bool same_layout(const std::vector<TensorSlot>& a, const std::vector<TensorSlot>& b);

class SharedArena {
 public:
  static constexpr size_t k_guard = 4096;  // guard bytes before and after each tensor

  static util::Result<SharedArena> create();
  SharedArena(SharedArena&&) noexcept;
  SharedArena& operator=(SharedArena&&) noexcept;
  ~SharedArena();

  int fd() const { return m_fd; }
  size_t size() const { return m_size; }  // the layout's extent (what a runner maps)
  // Places `slots` (sets their offsets), grows and maps the memfd (a mapping that covers the new
  // layout is kept: remapping cost page-table work and the address-space lock every time).
  util::Result<void> layout(std::vector<TensorSlot>& slots);
  char* data(const TensorSlot& s) { return m_base + s.offset; }
  // Refills every guard zone with a pattern derived from `seed`.
  void arm_guards(uint64_t seed);
  // Describes the first guard byte changed since arm_guards ("wrote 12 bytes past the end of y").
  std::optional<std::string> check_guards() const;
  // Fills every output byte with `byte`: 0xFF (NaN, all-ones) by default; 0x7F (a large finite
  // float, a large integer) for the second run, so an element left unwritten fails even where
  // the expected value is NaN.
  void poison_outputs(unsigned char byte = 0xff);

 private:
  SharedArena() = default;
  void release();
  int m_fd = -1;
  char* m_base = nullptr;
  size_t m_size = 0;
  size_t m_mapped = 0;     // the mapping's length: the largest layout mapped so far
  size_t m_file_size = 0;  // the memfd's size: the largest layout so far
  std::vector<TensorSlot> m_slots;
  std::vector<unsigned char> m_pattern;  // expected guard bytes, laid out as in the arena
  std::vector<std::pair<size_t, size_t>> m_guards;  // (offset, length)
};

}  // namespace kwb::eval
