#pragma once
// Calling a candidate's extern "C" entry point: tensors as pointers in spec order, then int64
// params. On x86-64 System V and AArch64 every one of these arguments is an INTEGER-class
// argument, and a caller may pass more of them than the callee reads, so one function type with
// k_max_args arguments calls every entry of this shape.
#include <cstdint>
#include <vector>

namespace kwb::runner {

constexpr int k_max_args = 16;
using EntryFn = void (*)(intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                         intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                         intptr_t, intptr_t);

inline void call_entry(EntryFn fn, const std::vector<intptr_t>& args) {
  intptr_t a[k_max_args] = {};
  for (size_t i = 0; i < args.size() && i < k_max_args; ++i) a[i] = args[i];
  fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
}

// Nanoseconds of CLOCK_MONOTONIC read through the raw system call (not the patchable vDSO).
int64_t monotonic_ns();

}  // namespace kwb::runner
