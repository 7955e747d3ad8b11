#pragma once
// Nsight Compute's report of a profiled candidate (issue 34, docs/profiles.md): the raw page
// (`ncu --csv --page raw`: a header row of metric names, a row of units, one row per profiled
// kernel launch) read into per-launch metric maps, then into core::KernelProfile with the
// sentences that say what to do; the details page (`--page details`) read for ncu's own rule
// results. Pure text in, values out: running ncu is eval/cuda_* 's business.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/profile.hpp"
#include "util/error.hpp"

namespace kwb::eval {

// What the profile pass gives ncu so that every field of core::KernelProfile is collected:
//   ncu <ncu_profile_options()> --export F <the runner command>
//   ncu --import F.ncu-rep --csv --page raw --print-units base       -> parse_ncu_raw()
//   ncu --import F.ncu-rep --csv --page details --print-units base   -> parse_ncu_rules()
// (or --csv --page raw --log-file F directly, without the rules). The sections carry ncu's rules
// (and the warp-stall breakdown); --metrics names the rest explicitly, so the raw page has them
// whatever a section holds in this ncu version (the theoretical occupancy,
// sm__maximum_warps_per_active_cycle_pct, comes with the Occupancy section only: ncu 2025.3.1 does
// not list it for gh100). Every name here is in the H200's `ncu --query-metrics --chip gh100` or is a
// launch__ metric, and ran there (tests/fixtures/record/record.sh): a name ncu does not know fails
// the whole run. tests/fixtures/record/metrics.txt is the same list (a test compares them).
const std::vector<std::string>& ncu_sections();
const std::vector<std::string>& ncu_metrics();
// --section S ... [--metrics a,b,...] --print-units base; without the metrics: what the sections
// alone collect (the fallback where ncu refuses a name of the list).
std::vector<std::string> ncu_profile_options(bool with_metrics = true);

// One profiled kernel launch of the raw page.
struct NcuLaunch {
  std::string id;  // ncu's "ID" column: the launch's index in the report
  std::string kernel, grid, block;
  std::map<std::string, std::string> values;  // metric name -> the value as printed
  std::map<std::string, std::string> units;   // metric name -> its unit ("%", "nsecond", "byte", ...)
};

// The launches of a raw page. Text before the header (the program's own output) and ncu's "=="
// lines are skipped. Fails, naming the line, when there is no header (with ncu's first ==ERROR==
// line, if any), or a row's field count differs from the header's.
util::Result<std::vector<NcuLaunch>> parse_ncu_raw(std::string_view text);

// A launch's numbers: the fields of the profile (no findings, no rules).
core::KernelProfile kernel_profile(const NcuLaunch& launch);

// The sentences the numbers of `p` support (docs/profiles.md "Findings"); none from a null metric.
std::vector<std::string> profile_findings(const core::KernelProfile& p);

// The rule results of a details page, by launch ID. Fails, naming the line, when the text has no
// details header ("ID", ..., "Rule Name", ...) or a quoted field never ends.
util::Result<std::map<std::string, std::vector<core::NcuRule>>> parse_ncu_rules(std::string_view text);

// Both pages together: one profile per launch, with its findings and (when `details` is not
// empty) ncu's rules. A details page that does not parse leaves the rules empty, never the profile.
util::Result<std::vector<core::KernelProfile>> ncu_profiles(std::string_view raw, std::string_view details = {});

}  // namespace kwb::eval
