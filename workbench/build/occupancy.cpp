#include "build/occupancy.hpp"

#include <algorithm>
#include <cctype>
#include <climits>

namespace kwb::build {

namespace {

int64_t round_up(int64_t v, int64_t unit) { return (v + unit - 1) / unit * unit; }

// Blocks per SM the register file allows (cuda_occupancy.h, cudaOccMaxBlocksPerSMRegsLimit).
int64_t register_limit(const ArchLimits& l, int registers, int64_t warps) {
  if (registers <= 0) return INT_MAX;
  int64_t per_warp = round_up(int64_t(registers) * 32, l.reg_alloc_unit);
  // The hardware checks the per-block limit as if warps were spread over every sub-partition.
  if (per_warp * round_up(warps, l.sub_partitions) > l.regs_per_block || per_warp * warps > l.regs_per_block) return 0;
  int64_t warps_per_partition = (l.regs_per_sm / l.sub_partitions) / per_warp;
  return warps_per_partition * l.sub_partitions / warps;
}

}  // namespace

std::optional<ArchLimits> arch_limits(const std::string& arch) {
  std::string a = arch;
  for (const char* prefix : {"sm_", "compute_"})
    if (a.starts_with(prefix)) a = a.substr(std::string_view(prefix).size());
  while (!a.empty() && !std::isdigit(static_cast<unsigned char>(a.back()))) a.pop_back();  // 90a -> 90
  ArchLimits l;
  l.arch = "sm_" + a;
  if (a == "90" || a == "100" || a == "103") return l;  // Hopper, Blackwell data-centre
  if (a == "80") {
    l.smem_per_sm = 164 * 1024;
    l.smem_per_block = 163 * 1024;
    return l;
  }
  if (a == "86" || a == "87" || a == "89" || a == "120") {
    l.max_warps_per_sm = 48;
    l.max_blocks_per_sm = a == "86" ? 16 : a == "87" ? 16 : 24;
    if (a == "120") l.max_blocks_per_sm = 32;
    l.smem_per_sm = (a == "87" ? 164 : 100) * 1024;
    l.smem_per_block = (a == "87" ? 163 : 99) * 1024;
    return l;
  }
  return std::nullopt;
}

core::Occupancy occupancy(const ArchLimits& l, const KernelResources& k, int64_t threads, int64_t dynamic_smem) {
  core::Occupancy o;
  o.threads = threads;
  o.dynamic_smem_bytes = dynamic_smem;
  if (threads <= 0 || threads > l.max_threads_per_block) {
    o.limited_by = "threads";
    return o;
  }
  const int64_t warps = (threads + 31) / 32;
  int64_t smem = k.static_smem + dynamic_smem;
  int64_t smem_limit = INT_MAX;
  if (smem > l.smem_per_block) {
    smem_limit = 0;
  } else {
    int64_t allocated = round_up(smem + l.smem_reserved_per_block, l.smem_alloc_unit);
    if (allocated > 0) smem_limit = l.smem_per_sm / allocated;
  }
  struct Limit {
    const char* name;
    int64_t blocks;
  };
  // Ties go to the first: a kernel at full occupancy is limited by warps, not by its registers.
  const Limit limits[] = {{"warps", l.max_warps_per_sm / warps},
                          {"blocks", l.max_blocks_per_sm},
                          {"registers", register_limit(l, k.registers, warps)},
                          {"shared_memory", smem_limit}};
  const Limit* least = &limits[0];
  for (const auto& x : limits)
    if (x.blocks < least->blocks) least = &x;
  o.blocks_per_sm = int(std::max<int64_t>(0, least->blocks));
  o.limited_by = least->name;
  o.warps_per_sm = int(o.blocks_per_sm * warps);
  o.pct = 100.0 * o.warps_per_sm / l.max_warps_per_sm;
  return o;
}

int max_threads_per_block(const ArchLimits& l, int registers) {
  for (int warps = l.max_threads_per_block / 32; warps > 0; --warps)
    if (register_limit(l, registers, warps) > 0) return warps * 32;
  return 0;
}

}  // namespace kwb::build
