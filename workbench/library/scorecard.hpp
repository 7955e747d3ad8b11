#pragma once
// The library's scorecard (docs/library.md "Scorecard"): per op, variant, device class and bench
// workload, the incumbent's time against the fastest other implementation this machine has (the
// spec's vendor baselines and the library's other kernels of the same op and variant), its share
// of the calibrated and data-sheet roofs; per op family the share of rows at the bar (0.99x the
// fastest) and their geomean; the rows below the bar with their gap. Pure arithmetic over rows
// measured elsewhere (app/library_report_command.cpp) or read back from a stored report.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/error.hpp"

namespace kwb::library {

inline constexpr const char* k_report_schema = "kwb.library_report.v1";
inline constexpr double k_default_bar = 0.99;

// Another implementation's time on the same workload and device.
struct Rival {
  std::string name;    // "cublas", "gemm/cuda/tiled_f32.cu"
  std::string kind;    // "baseline" (the spec's vendor baseline) | "library" (another library kernel)
  std::optional<double> ns;  // its median; null when it could not be timed (status says why)
  std::string status = "measured";  // "measured" | a verdict status ("incorrect", "no_device", ...)
};

struct ScoreRow {
  std::string op, variant, backend, device_class, workload;
  std::string kernel, source_sha256;  // the incumbent: library path and source digest
  // Its shape region where it holds one ("n in [1, 1500000]"; docs/library.md "Shape regions"):
  // the workload lies in it; empty: the whole space.
  std::string region;
  // "measured": timed; "no_device": this machine has no device of the backend; "failed": the
  // incumbent was not accepted here (reason); "not_measured": no stored figure.
  std::string status = "measured";
  std::string reason;
  std::optional<double> incumbent_ns, stderr_pct;
  int64_t samples = 0;
  std::vector<Rival> rivals;
  // Percent of the calibrated and the data-sheet roofs (the verdict's workloads[].roofline).
  std::optional<double> pct_bw, pct_flops, pct_bw_sheet, pct_flops_sheet;
  // The binding roof at the workload's intensity (the verdict's feedback.roofline[]): "memory" or
  // "compute", and the % of it reached against the calibrated and the data-sheet peaks.
  std::string bound;
  std::optional<double> pct_roof, pct_roof_sheet;
  std::string device, measured_at;  // where and when the figures were measured
  bool stale = false;  // the library's head names another incumbent since it was measured
};

// The fastest rival timed (ties: the first listed), or null where none was.
std::optional<Rival> fastest_rival(const ScoreRow& row);
// The fastest rival's time over the incumbent's (> 1: the incumbent is faster); null where the
// incumbent or every rival lacks a time.
std::optional<double> vs_fastest(const ScoreRow& row);

struct FamilyScore {
  std::string op;
  int rows = 0;        // every row of the op
  int compared = 0;    // rows with a vs_fastest
  int at_bar = 0;      // of those, vs_fastest >= bar
  int unrivalled = 0;  // measured rows with no rival timed (nothing to compare with)
  std::optional<double> share_at_bar;  // at_bar / compared; null when none was compared
  std::optional<double> geomean;       // of vs_fastest over the compared rows
};

// One family per op, in the order the ops first appear.
std::vector<FamilyScore> family_scores(const std::vector<ScoreRow>& rows, double bar = k_default_bar);

struct BelowBar {
  size_t row = 0;  // index into the rows
  double vs_fastest = 0;
  double gap_pct = 0;  // (1 - vs_fastest) * 100: how much faster the fastest rival is
  std::string fastest;  // its name
};
// The compared rows under the bar, largest gap first.
std::vector<BelowBar> below_bar(const std::vector<ScoreRow>& rows, double bar = k_default_bar);

nlohmann::json row_json(const ScoreRow& row);
util::Result<ScoreRow> row_from_json(const nlohmann::json& j, const std::string& where);

// The whole report: `source` says where the figures come from (docs/library.md "Scorecard").
nlohmann::json report_json(const std::vector<ScoreRow>& rows, const nlohmann::json& source, double bar = k_default_bar);
// The rows of a report (a stored one); errors name the row and field.
util::Result<std::vector<ScoreRow>> rows_of_report(const nlohmann::json& report);
// The new rows, then those of `previous` (a stored report) of another op, variant, backend, device
// class or workload: a measurement of one op keeps the others' figures, each with its own time
// and device. An unreadable `previous` adds nothing.
std::vector<ScoreRow> merge_rows(std::vector<ScoreRow> rows, const nlohmann::json& previous);
// The report as a table for people: the source, one line per row, the families and the rows below the bar.
std::string report_table(const nlohmann::json& report);

}  // namespace kwb::library
