#pragma once
// Warm incumbents (docs/library.md "One pass"): an evaluation of a library kernel, validated and
// its runner open, is kept after a comparison for the next candidate of the same op, variant,
// backend and device class on the same device, so a candidate pays only for its own side. One
// evaluation serves one comparison at a time (taken, then given back); a key holds several when
// a lane runs candidates side by side. Entries are dropped when the library moves on (a key of
// the same kernel slot with another source or spec version is given back), when a comparison
// found them failing (not given back), and beyond the cap, oldest first.
#include <chrono>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "eval/evaluation.hpp"

namespace kwb::app {

// What identifies a warm incumbent: where it runs, which kernel slot, and what exactly it is.
struct IncumbentKey {
  std::string device;  // Evaluation::bound_device()
  std::string slot;    // "op/variant/backend/device_class"
  std::string what;    // source sha256, spec version, flags
  std::string text() const { return device + "|" + slot + "|" + what; }
};

class IncumbentPool {
 public:
  explicit IncumbentPool(size_t max_idle = 8) : m_max_idle(max_idle) {}
  // An idle evaluation of `key`, or null (the caller prepares one).
  std::unique_ptr<eval::Evaluation> take(const IncumbentKey& key);
  // Kept for the next candidate; idle ones of the same device and slot but another `what` (the
  // library moved on) are dropped, and the oldest beyond the cap.
  void give(const IncumbentKey& key, std::unique_ptr<eval::Evaluation> evaluation);
  size_t idle() const;

 private:
  struct Entry {
    IncumbentKey key;
    std::unique_ptr<eval::Evaluation> evaluation;
  };
  size_t m_max_idle;
  mutable std::mutex m_mutex;
  std::list<Entry> m_idle;  // newest first
};

}  // namespace kwb::app
