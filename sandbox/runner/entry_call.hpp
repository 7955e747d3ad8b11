#pragma once
// Calling a candidate's extern "C" entry point: tensors as pointers in spec order, then int64
// params, then the spec's double scalars (docs/specs.md "Scalars"). On x86-64 System V and AArch64
// pointers and integers are INTEGER-class arguments (registers in order, then the stack) and
// doubles go to the floating-point registers (xmm0-7, d0-7) independently of them, and a caller
// may pass more arguments than the callee reads, so one function type with k_max_args integer
// arguments and k_max_reals doubles calls every entry of this shape (the doubles never reach the
// stack, so the stacked integer arguments are where the callee looks for them).
#include <cstdint>
#include <vector>

namespace kwb::runner {

constexpr int k_max_args = 16;
constexpr int k_max_reals = 8;
using EntryFn = void (*)(intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                         intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                         intptr_t, intptr_t, double, double, double, double, double, double, double, double);

inline void call_entry(EntryFn fn, const std::vector<intptr_t>& args, const std::vector<double>& reals = {}) {
  intptr_t a[k_max_args] = {};
  double d[k_max_reals] = {};
  for (size_t i = 0; i < args.size() && i < k_max_args; ++i) a[i] = args[i];
  for (size_t i = 0; i < reals.size() && i < k_max_reals; ++i) d[i] = reals[i];
  fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], d[0], d[1],
     d[2], d[3], d[4], d[5], d[6], d[7]);
}

// Nanoseconds of CLOCK_MONOTONIC read through the raw system call (not the patchable vDSO).
int64_t monotonic_ns();

}  // namespace kwb::runner
