// eval/ncu_report.hpp: ncu's raw and details pages into core::KernelProfile (docs/profiles.md).
#include "eval/ncu_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "eval/ncu_csv.hpp"

namespace kwb::eval {

namespace {
namespace ncu {

// The stall reasons, as ncu names them in the metric names of the warp-state breakdown.
// `gmma` (waiting on a warpgroup MMA) is Hopper's; all of them are in the H200's metric list.
constexpr std::array<std::string_view, 18> k_stall_reasons = {
    "barrier",  "branch_resolving", "dispatch_stall", "drain",         "gmma",         "imc_miss",
    "lg_throttle", "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc",
    "no_instruction", "not_selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"};

// Families of stall metrics, in the order they are preferred: the first with a positive value is
// the breakdown. {prefix, suffix, is a ratio (warp cycles per issued instruction)}.
struct StallFamily {
  std::string_view prefix, suffix;
  bool ratio;
};
constexpr std::array<StallFamily, 4> k_stall_families = {{
    {"smsp__average_warps_issue_stalled_", "_per_issue_active.ratio", true},
    {"smsp__average_warp_latency_issue_stalled_", ".ratio", true},
    {"smsp__warp_issue_stalled_", "_per_warp_active.pct", false},
    {"smsp__pcsamp_warps_issue_stalled_", "", false},  // sampled counts (SourceCounters)
}};

std::vector<std::string> metric_list() {
  std::vector<std::string> m = {
      "gpu__time_duration.sum",
      "launch__grid_size",
      "launch__block_size",
      "launch__registers_per_thread",
      "launch__occupancy_limit_registers",
      "launch__occupancy_limit_shared_mem",
      "launch__occupancy_limit_warps",
      "launch__occupancy_limit_blocks",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "l1tex__t_sector_hit_rate.pct",
      "lts__t_sector_hit_rate.pct",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
      "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum",
      "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum",
      "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
  };
  for (auto r : k_stall_reasons)
    m.push_back(fmt::format("{}{}{}", k_stall_families[0].prefix, r, k_stall_families[0].suffix));
  return m;
}

// A launch's value of the first of `names` it has a number for, in the base unit.
std::optional<double> metric(const NcuLaunch& l, std::initializer_list<std::string_view> names) {
  for (auto name : names) {
    auto it = l.values.find(std::string(name));
    if (it == l.values.end()) continue;
    auto v = ncu_number(it->second);
    if (!v) continue;
    auto u = l.units.find(std::string(name));
    return *v * (u == l.units.end() ? 1.0 : ncu_unit_scale(u->second));
  }
  return std::nullopt;
}

std::optional<int64_t> count(const NcuLaunch& l, std::initializer_list<std::string_view> names) {
  auto v = metric(l, names);
  return v ? std::optional<int64_t>(std::llround(*v)) : std::nullopt;
}

// Sectors per request: ncu's own ratio, else sectors / requests (null without requests).
std::optional<double> sectors_per_request(const NcuLaunch& l, std::string_view op) {
  if (auto r = metric(l, {fmt::format("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_{}.ratio", op)}))
    return r;
  auto sectors = metric(l, {fmt::format("l1tex__t_sectors_pipe_lsu_mem_global_op_{}.sum", op)});
  auto requests = metric(l, {fmt::format("l1tex__t_requests_pipe_lsu_mem_global_op_{}.sum", op)});
  if (!sectors || !requests || *requests <= 0) return std::nullopt;
  return *sectors / *requests;
}

// The occupancy limiter: the launch__occupancy_limit_* with the fewest blocks per SM; ties go to
// the first, in the order of build/occupancy.cpp (a kernel at full occupancy is limited by warps).
std::string occupancy_limiter(const NcuLaunch& l) {
  struct Limit {
    std::string_view metric, name;
  };
  constexpr std::array<Limit, 5> limits = {{{"launch__occupancy_limit_warps", "warps"},
                                            {"launch__occupancy_limit_blocks", "blocks"},
                                            {"launch__occupancy_limit_registers", "registers"},
                                            {"launch__occupancy_limit_shared_mem", "shared_memory"},
                                            {"launch__occupancy_limit_barriers", "barriers"}}};
  std::string best;
  double least = 0;
  for (const auto& lim : limits)
    if (auto v = metric(l, {lim.metric}); v && (best.empty() || *v < least)) {
      best = std::string(lim.name);
      least = *v;
    }
  return best;
}

std::vector<core::WarpStall> stalls(const NcuLaunch& l) {
  for (const auto& family : k_stall_families) {
    std::vector<core::WarpStall> found;
    double total = 0;
    for (const auto& [name, text] : l.values) {
      if (!name.starts_with(family.prefix) || !name.ends_with(family.suffix)) continue;
      std::string reason = name.substr(family.prefix.size(), name.size() - family.prefix.size() - family.suffix.size());
      if (family.suffix.empty() && reason.find('.') != std::string::npos) reason = reason.substr(0, reason.find('.'));
      if (reason.empty() || reason == "selected" || reason.ends_with("_not_issued")) continue;
      auto v = ncu_number(text);
      if (!v || *v <= 0) continue;
      total += *v;
      found.push_back({reason, family.ratio ? v : std::nullopt, *v});
    }
    if (found.empty()) continue;
    for (auto& s : found) s.pct = 100.0 * *s.pct / total;
    std::ranges::sort(found, [](const auto& a, const auto& b) { return *a.pct > *b.pct; });
    if (found.size() > 5) found.resize(5);
    return found;
  }
  return {};
}

std::optional<size_t> column(const std::vector<std::string>& header, std::string_view name) {
  auto it = std::ranges::find(header, name);
  return it == header.end() ? std::nullopt : std::optional<size_t>(size_t(it - header.begin()));
}

std::string first_error(const CsvText& csv) {
  for (const auto& m : csv.messages)
    if (m.starts_with("==ERROR==")) return "; ncu said: " + m;
  return "";
}

}  // namespace ncu
}  // namespace

const std::vector<std::string>& ncu_sections() {
  static const std::vector<std::string> k = {"SpeedOfLight", "Occupancy", "LaunchStats",
                                             "MemoryWorkloadAnalysis_Tables", "WarpStateStats"};
  return k;
}

const std::vector<std::string>& ncu_metrics() {
  static const std::vector<std::string> k = ncu::metric_list();
  return k;
}

std::vector<std::string> ncu_profile_options(bool with_metrics) {
  std::vector<std::string> args;
  for (const auto& s : ncu_sections()) {
    args.push_back("--section");
    args.push_back(s);
  }
  if (with_metrics) {
    std::string joined;
    for (const auto& m : ncu_metrics()) joined += (joined.empty() ? "" : ",") + m;
    args.insert(args.end(), {"--metrics", joined});
  }
  args.insert(args.end(), {"--print-units", "base"});
  return args;
}

util::Result<std::vector<NcuLaunch>> parse_ncu_raw(std::string_view text) {
  auto csv = read_csv(text);
  if (!csv) return util::Unexpected(csv.error());
  const auto& recs = csv->records;
  auto header = std::ranges::find_if(recs, [](const CsvRecord& r) {
    return !r.fields.empty() && r.fields[0] == "ID" && std::ranges::find(r.fields, "Kernel Name") != r.fields.end();
  });
  if (header == recs.end())
    return util::fail("ncu raw page",
                      fmt::format("no header row (\"ID\",...,\"Kernel Name\",...) in {} CSV record{}{}: not the "
                                  "output of `ncu --csv --page raw`, or ncu profiled nothing",
                                  recs.size(), recs.size() == 1 ? "" : "s", ncu::first_error(*csv)));
  const auto& names = header->fields;
  auto kernel_col = ncu::column(names, "Kernel Name");
  auto grid_col = ncu::column(names, "Grid Size"), block_col = ncu::column(names, "Block Size");
  std::vector<NcuLaunch> out;
  const std::vector<std::string>* units = nullptr;
  for (auto it = header + 1; it != recs.end(); ++it) {
    auto fields = it->fields;
    if (fields.size() == names.size() + 1 && fields.back().empty()) fields.pop_back();  // a trailing comma
    if (fields.size() != names.size())
      return util::fail(fmt::format("ncu raw page, line {}", it->line),
                        fmt::format("{} fields where the header (line {}) has {}: the CSV is cut short or mixed with "
                                    "other output (write it with --log-file)",
                                    fields.size(), header->line, names.size()));
    if (it == header + 1 && fields[0].empty()) {  // the units row
      units = &it->fields;
      continue;
    }
    NcuLaunch l;
    l.id = fields[0];
    l.kernel = fields[*kernel_col];
    if (grid_col) l.grid = fields[*grid_col];
    if (block_col) l.block = fields[*block_col];
    for (size_t c = 0; c < names.size(); ++c) {
      if (names[c].find("__") == std::string::npos) continue;  // "ID", "Kernel Name", ...: not metrics
      l.values[names[c]] = fields[c];
      if (units && c < units->size()) l.units[names[c]] = (*units)[c];
    }
    out.push_back(std::move(l));
  }
  return out;
}

core::KernelProfile kernel_profile(const NcuLaunch& l) {
  core::KernelProfile p;
  p.kernel = l.kernel;
  p.grid = l.grid;
  p.block = l.block;
  p.duration_ns = ncu::metric(l, {"gpu__time_duration.sum"});
  p.dram_sol_pct = ncu::metric(l, {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
                              "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"});
  p.memory_sol_pct = ncu::metric(l, {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                                "gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed"});
  p.sm_sol_pct = ncu::metric(l, {"sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  p.achieved_occupancy_pct = ncu::metric(l, {"sm__warps_active.avg.pct_of_peak_sustained_active"});
  p.theoretical_occupancy_pct = ncu::metric(l, {"sm__maximum_warps_per_active_cycle_pct"});
  p.occupancy_limiter = ncu::occupancy_limiter(l);
  if (auto r = ncu::count(l, {"launch__registers_per_thread"})) p.registers_per_thread = int(*r);
  p.l1_hit_pct = ncu::metric(l, {"l1tex__t_sector_hit_rate.pct"});
  p.l2_hit_pct = ncu::metric(l, {"lts__t_sector_hit_rate.pct"});
  p.global_load_sectors_per_request = ncu::sectors_per_request(l, "ld");
  p.global_store_sectors_per_request = ncu::sectors_per_request(l, "st");
  p.shared_load_bank_conflicts = ncu::count(l, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"});
  p.shared_store_bank_conflicts = ncu::count(l, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"});
  p.shared_load_wavefronts = ncu::count(l, {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"});
  p.shared_store_wavefronts = ncu::count(l, {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"});
  for (auto name : {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",  // all ops, wgmma too
                    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
                    "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active"})
    if (auto v = ncu::metric(l, {name})) p.tensor_pipe_pct = std::max(p.tensor_pipe_pct.value_or(0), *v);
  p.local_load_bytes = ncu::count(l, {"l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"});
  if (!p.local_load_bytes)
    if (auto s = ncu::metric(l, {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"})) p.local_load_bytes = std::llround(*s * 32);
  p.local_store_bytes = ncu::count(l, {"l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"});
  if (!p.local_store_bytes)
    if (auto s = ncu::metric(l, {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"})) p.local_store_bytes = std::llround(*s * 32);
  p.stalls = ncu::stalls(l);
  return p;
}

util::Result<std::map<std::string, std::vector<core::NcuRule>>> parse_ncu_rules(std::string_view text) {
  auto csv = read_csv(text);
  if (!csv) return util::Unexpected(csv.error());
  const auto& recs = csv->records;
  auto header = std::ranges::find_if(recs, [](const CsvRecord& r) {
    return !r.fields.empty() && r.fields[0] == "ID" && std::ranges::find(r.fields, "Rule Name") != r.fields.end();
  });
  if (header == recs.end())
    return util::fail("ncu details page",
                      "no header row (\"ID\",...,\"Rule Name\",...): not the output of `ncu --csv --page details`" +
                          ncu::first_error(*csv));
  const auto& names = header->fields;
  auto col = [&](std::string_view n) { return ncu::column(names, n); };
  auto section = col("Section Name"), rule = col("Rule Name"), type = col("Rule Type"),
       description = col("Rule Description"), speedup = col("Estimated Speedup");
  std::map<std::string, std::vector<core::NcuRule>> out;
  for (auto it = header + 1; it != recs.end(); ++it) {
    const auto& f = it->fields;
    auto at = [&](std::optional<size_t> c) { return c && *c < f.size() ? f[*c] : std::string(); };
    if (at(rule).empty()) continue;  // a metric row
    core::NcuRule r{at(section), at(rule), at(type), at(description), ncu_number(at(speedup))};
    out[f[0]].push_back(std::move(r));
  }
  return out;
}

util::Result<std::vector<core::KernelProfile>> ncu_profiles(std::string_view raw, std::string_view details) {
  auto launches = parse_ncu_raw(raw);
  if (!launches) return util::Unexpected(launches.error());
  std::map<std::string, std::vector<core::NcuRule>> rules;
  if (!details.empty())
    if (auto r = parse_ncu_rules(details)) rules = std::move(*r);
  std::vector<core::KernelProfile> out;
  for (const auto& l : *launches) {
    auto p = kernel_profile(l);
    p.findings = profile_findings(p);
    if (auto it = rules.find(l.id); it != rules.end()) p.ncu_rules = it->second;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace kwb::eval
