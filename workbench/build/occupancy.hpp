#pragma once
// Theoretical occupancy (the CUDA occupancy calculator's rules, cuda_occupancy.h): how many
// blocks of a kernel fit on one SM, given its registers per thread, its shared memory and the
// architecture's limits. Registers are allocated per warp in units of 256 (32 threads x 8) and
// split over the SM's 4 sub-partitions; shared memory per block is rounded up to 128 bytes after
// the 1 KiB the driver reserves per block (sm_80 and later), against the largest carveout.
#include <cstdint>
#include <optional>
#include <string>

#include "core/feedback.hpp"

namespace kwb::build {

struct ArchLimits {
  std::string arch;                    // "sm_90"
  int max_warps_per_sm = 64;
  int max_blocks_per_sm = 32;
  int max_threads_per_block = 1024;
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  int reg_alloc_unit = 256;            // registers, per warp
  int sub_partitions = 4;
  int64_t smem_per_sm = 228 * 1024;    // the largest carveout
  int64_t smem_per_block = 227 * 1024; // opt-in maximum
  int64_t smem_reserved_per_block = 1024;
  int64_t smem_alloc_unit = 128;
};

// The limits of "sm_90", "sm_90a", "compute_80", ...; nullopt for an architecture not in the table.
std::optional<ArchLimits> arch_limits(const std::string& arch);

struct KernelResources {
  int registers = 0;          // per thread
  int64_t static_smem = 0;    // bytes per block
};

// Blocks per SM and what limits them, for blocks of `threads` threads and `dynamic_smem` bytes.
// A block that cannot run at all (too many threads, registers or shared memory) gives 0 blocks.
core::Occupancy occupancy(const ArchLimits& limits, const KernelResources& k, int64_t threads, int64_t dynamic_smem);

// The largest block (a multiple of 32 threads, at most limits.max_threads_per_block) that the
// kernel's registers allow: CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK without __launch_bounds__.
int max_threads_per_block(const ArchLimits& limits, int registers);

}  // namespace kwb::build
