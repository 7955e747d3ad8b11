#pragma once
// The checks of a loaded spec that need no reference: every workload fits its device classes,
// the test workloads cover the edge sizes, the rooflines are positive (docs/specs.md, "Checking
// a spec").
#include <cstdint>
#include <string>

#include "core/spec.hpp"
#include "speccheck/problem.hpp"
#include "util/error.hpp"

namespace kwb::speccheck {

// How much tensor memory one workload may take on each device class.
struct DeviceLimits {
  uint64_t cpu_bytes = 0;   // default: half of this machine's physical memory
  uint64_t cuda_bytes = 0;  // default: 139 GiB, an H200's memory
  static DeviceLimits defaults();
};

// "64GiB", "512MiB", "2GB", "1000000" (bytes); binary and decimal suffixes, case-insensitive.
util::Result<uint64_t> parse_size(const std::string& text);
std::string format_size(double bytes);  // "1.50 GiB"

// A workload's tensors in a variant's dtypes, summed, for every variant; a workload that runs on
// cpu must fit the cpu class, one that runs on cuda or cuda-launcher the cuda class.
void check_memory(const core::Spec& spec, const DeviceLimits& limits, Findings& out);
// Each param takes, across the test workloads, the value 1, a prime, a value above 32 that is not
// a multiple of 32 and one above 128 that is not a multiple of 128 (warnings).
void check_edge_coverage(const core::Spec& spec, Findings& out);
// Per variant and workload: roofline bytes > 0 (the loader already refuses < 0), flops >= 0.
void check_roofline(const core::Spec& spec, Findings& out);

// "workloads.test[3]" / "workloads.bench[0]"
std::string workload_path(bool bench, size_t index);

}  // namespace kwb::speccheck
