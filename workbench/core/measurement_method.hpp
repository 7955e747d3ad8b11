#pragma once
// The measurement method's salt (docs/evaluation.md "Measurement method"): part of every tuning
// record's identity (with the workbench version) and of every verdict (summary.method), so that a
// time measured by another method — another flush, clock, stopping rule or comparison — never
// passes for one measured by this one. Bump it with any change to those: the files that make the
// method are fingerprinted in tests/tree/measurement_method.json, and the ctest
// MeasurementMethodSalt fails when one of them changes while the salt stays the same
// (tests/tree/check_measurement_method.py says how to re-record).
//
//   m1  the method before salts existed (records written before carry none)
//   m2  one pass (the candidate timed interleaved with the incumbent), the sequential interval,
//       GPU blocks of 5 ms, tunable configs chosen from round-robin blocks and the winner timed
//       in a pass of its own; CPU runners with their buffers at one address and each block pair
//       on one core, the timing thread's own waits for a CPU taken out of a sample; the CPU
//       flush reads its buffer (it wrote it: dirty lines charged to the next call); validation
//       places each tensor at just its spec's alignment (timing stays on 64 bytes); a launcher's
//       stream access-policy window and L2 set-aside undone before every sample
//   m3  the GPU runner's single calls copy the arena through one path that can give each tensor an
//       allocation of its own (sanitizer sessions only, never timed); every cubin built with
//       -lineinfo (line tables only); tunable spaces larger than the grid searched (configs raced
//       against the best so far, aborted when clearly slower, finalists chosen as before).
//       Timing itself is as in m2
namespace kwb::core {

inline constexpr const char* k_measurement_method = "m3";

}  // namespace kwb::core
