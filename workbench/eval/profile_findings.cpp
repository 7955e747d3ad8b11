// eval/ncu_report.hpp: profile_findings, the sentences a profile's numbers support. The thresholds
// are those of docs/profiles.md "Findings"; a finding needs every number it names (a null metric
// yields none).
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "eval/ncu_report.hpp"

namespace kwb::eval {

namespace {
namespace findings {

constexpr double k_memory_bound_pct = 80;   // DRAM (or another memory unit) this busy: bytes are the cost
constexpr double k_memory_heavy_pct = 60;   // DRAM busy, with room left in the access pattern
constexpr double k_compute_bound_pct = 80;  // an SM pipeline this busy: instructions are the cost
constexpr double k_idle_pct = 40;           // below this on both sides: latency-bound
constexpr double k_low_theoretical_pct = 50;
constexpr double k_achieved_share = 0.7;    // achieved below this share of the theoretical: idle slots
constexpr double k_conflict_share = 0.1;    // extra shared wavefronts per ideal one
constexpr double k_tensor_idle_pct = 1;

std::string pct(double v) { return fmt::format("{:.0f} %", v); }

std::string grouped(int64_t n) {  // 130023424 -> "130,023,424"
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string bytes(int64_t n) {
  if (n >= 1'000'000'000) return fmt::format("{:.1f} GB", double(n) / 1e9);
  if (n >= 1'000'000) return fmt::format("{:.1f} MB", double(n) / 1e6);
  if (n >= 1'000) return fmt::format("{:.1f} kB", double(n) / 1e3);
  return fmt::format("{} bytes", n);
}

// What a warp stalled for `reason` waits on (ncu's Kernel Profiling Guide, in a few words).
std::string_view stall_meaning(std::string_view reason) {
  struct Meaning {
    std::string_view reason, text;
  };
  static constexpr Meaning k[] = {
      {"long_scoreboard", "waiting on global or local memory"},
      {"short_scoreboard", "waiting on shared memory or a special-function result"},
      {"barrier", "waiting at __syncthreads for the rest of the block"},
      {"gmma", "waiting on a warpgroup MMA (wgmma) to finish"},
      {"mio_throttle", "the shared-memory/special-function queue is full"},
      {"lg_throttle", "the global/local memory queue is full: fewer, wider accesses"},
      {"math_pipe_throttle", "a math pipe is saturated"},
      {"wait", "fixed-latency dependencies between instructions"},
      {"not_selected", "ready but another warp issued: enough warps"},
      {"no_instruction", "instruction cache misses or a jump"},
      {"branch_resolving", "resolving branch targets"},
      {"dispatch_stall", "the dispatcher held the warp back"},
      {"drain", "stores draining to memory at exit"},
      {"membar", "a memory fence"},
      {"sleeping", "__nanosleep"},
      {"tex_throttle", "the texture queue is full"},
      {"imc_miss", "constant cache misses"},
      {"misc", "other reasons"},
  };
  for (const auto& m : k)
    if (m.reason == reason) return m.text;
  return "";
}

void memory_and_compute(const core::KernelProfile& p, std::vector<std::string>& out) {
  if (p.dram_sol_pct && *p.dram_sol_pct >= k_memory_bound_pct) {
    out.push_back(fmt::format("memory-bound at {} of DRAM peak: gains now need fewer bytes (fuse passes, reuse data "
                              "on chip, narrower types)",
                              pct(*p.dram_sol_pct)));
  } else if (p.memory_sol_pct && *p.memory_sol_pct >= k_memory_bound_pct) {
    out.push_back(fmt::format("memory-bound at {} of the busiest memory unit's peak{}: fewer accesses to L1/L2 or "
                              "shared memory (keep values in registers, wider accesses)",
                              pct(*p.memory_sol_pct),
                              p.dram_sol_pct ? fmt::format(" (DRAM at {})", pct(*p.dram_sol_pct)) : ""));
  } else if (p.dram_sol_pct && *p.dram_sol_pct >= k_memory_heavy_pct) {
    out.push_back(fmt::format("DRAM at {} of its peak: close to memory-bound; the rest is in the access pattern",
                              pct(*p.dram_sol_pct)));
  }
  if (p.sm_sol_pct && *p.sm_sol_pct >= k_compute_bound_pct &&
      !(p.memory_sol_pct && *p.memory_sol_pct >= *p.sm_sol_pct))
    out.push_back(fmt::format("compute-bound at {} of the SM's peak: gains now need fewer or cheaper instructions",
                              pct(*p.sm_sol_pct)));
  if (p.sm_sol_pct && p.memory_sol_pct && *p.sm_sol_pct < k_idle_pct && *p.memory_sol_pct < k_idle_pct)
    out.push_back(fmt::format("neither memory ({}) nor the SM ({}) is busy: latency-bound; more independent work per "
                              "SM (occupancy, more loads in flight per thread) or a larger grid",
                              pct(*p.memory_sol_pct), pct(*p.sm_sol_pct)));
}

void coalescing(const core::KernelProfile& p, std::vector<std::string>& out) {
  // 4 sectors (128 bytes) serve a warp's 4-byte accesses; 16 its 16-byte ones. Above 16 no access
  // width is coalesced; the sentence names the 4-byte ideal, the common case.
  auto check = [&](const std::optional<double>& spr, std::string_view what, std::string_view verb) {
    if (spr && *spr > 16)
      out.push_back(fmt::format("global {} use {:.1f} sectors per request where 4 would do: uncoalesced (adjacent "
                                "threads should {} adjacent addresses)",
                                what, *spr, verb));
  };
  check(p.global_load_sectors_per_request, "loads", "read");
  check(p.global_store_sectors_per_request, "stores", "write");
}

void occupancy(const core::KernelProfile& p, std::vector<std::string>& out) {
  if (!p.achieved_occupancy_pct || !p.theoretical_occupancy_pct) return;
  double a = *p.achieved_occupancy_pct, t = *p.theoretical_occupancy_pct;
  bool low_theoretical = t < k_low_theoretical_pct;
  bool gap = a < k_achieved_share * t;
  if (!low_theoretical && !gap) return;
  std::string s = fmt::format("achieved occupancy {} of a theoretical {}", pct(a), pct(t));
  if (low_theoretical && !p.occupancy_limiter.empty()) {
    s += ", limited by " + (p.occupancy_limiter == "shared_memory" ? std::string("shared memory") : p.occupancy_limiter);
    if (p.occupancy_limiter == "registers")
      s += p.registers_per_thread
               ? fmt::format(" ({} per thread): keep fewer values live per thread, or cap them with __launch_bounds__ if the "
                             "spills stay small",
                             *p.registers_per_thread)
               : ": keep fewer values live per thread, or cap them with __launch_bounds__ if the spills stay small";
    else if (p.occupancy_limiter == "shared_memory")
      s += ": less shared memory per block (smaller tiles) fits more blocks per SM";
    else if (p.occupancy_limiter == "blocks")
      s += ": the blocks are small, more threads per block fit more warps";
  }
  if (gap) s += "; the gap to the theoretical is idle warp slots: a grid too small for the GPU, a tail wave or uneven work";
  out.push_back(std::move(s));
}

void spills(const core::KernelProfile& p, std::vector<std::string>& out) {
  int64_t total = p.local_load_bytes.value_or(0) + p.local_store_bytes.value_or(0);
  if (total <= 0) return;
  std::string regs = p.registers_per_thread ? fmt::format(" at {} registers per thread", *p.registers_per_thread) : "";
  out.push_back(fmt::format("{} of local-memory traffic{} (register spills or stack arrays): keep fewer values "
                            "live (smaller tiles, less unrolling) or index arrays with compile-time constants",
                            findings::bytes(total), regs));
}

void bank_conflicts(const core::KernelProfile& p, std::vector<std::string>& out) {
  auto check = [&](const std::optional<int64_t>& conflicts, const std::optional<int64_t>& wavefronts,
                   std::string_view what) {
    if (!conflicts || *conflicts <= 0) return;
    std::string ways;
    if (wavefronts) {
      int64_t ideal = *wavefronts - *conflicts;
      if (ideal > 0 && double(*conflicts) / double(ideal) < k_conflict_share) return;  // a few, not a pattern
      if (ideal > 0) ways = fmt::format(" ({:.1f}-way on average)", double(*wavefronts) / double(ideal));
    }
    out.push_back(fmt::format("{} shared-memory bank conflicts on {}{}: pad or swizzle the shared array",
                              grouped(*conflicts), what, ways));
  };
  check(p.shared_load_bank_conflicts, p.shared_load_wavefronts, "loads");
  check(p.shared_store_bank_conflicts, p.shared_store_wavefronts, "stores");
}

void top_stall(const core::KernelProfile& p, std::vector<std::string>& out) {
  if (p.stalls.empty()) return;
  const auto& s = p.stalls.front();
  auto meaning = stall_meaning(s.reason);
  std::string share = s.pct ? fmt::format(", {} of stalls", pct(*s.pct)) : "";
  out.push_back(meaning.empty() ? fmt::format("top stall: {}{}", s.reason, share)
                                : fmt::format("top stall: {} ({}){}", s.reason, meaning, share));
}

void tensor_pipes(const core::KernelProfile& p, std::vector<std::string>& out) {
  if (!p.tensor_pipe_pct || *p.tensor_pipe_pct >= k_tensor_idle_pct) return;
  // Only a kernel bound by its math: elsewhere the tensor pipes are beside the point.
  if (!p.sm_sol_pct || *p.sm_sol_pct < k_compute_bound_pct) return;
  if (p.memory_sol_pct && *p.memory_sol_pct >= *p.sm_sol_pct) return;
  out.push_back(fmt::format("the tensor pipes are idle ({}) while the SM is busy at {}: if the work is matrix "
                            "products, mma/wgmma would take it",
                            pct(*p.tensor_pipe_pct), pct(*p.sm_sol_pct)));
}

}  // namespace findings
}  // namespace

std::vector<std::string> profile_findings(const core::KernelProfile& p) {
  std::vector<std::string> out;
  findings::memory_and_compute(p, out);
  findings::coalescing(p, out);
  findings::occupancy(p, out);
  findings::spills(p, out);
  findings::bank_conflicts(p, out);
  findings::tensor_pipes(p, out);
  findings::top_stall(p, out);
  return out;
}

}  // namespace kwb::eval
