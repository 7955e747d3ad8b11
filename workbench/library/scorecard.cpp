#include "library/scorecard.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace kwb::library {

namespace {

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::optional<double> opt_number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

std::string text(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace

std::optional<Rival> fastest_rival(const ScoreRow& row) {
  const Rival* best = nullptr;
  for (const auto& r : row.rivals)
    if (r.ns && *r.ns > 0 && (!best || *r.ns < *best->ns)) best = &r;
  return best ? std::optional<Rival>(*best) : std::nullopt;
}

std::optional<double> vs_fastest(const ScoreRow& row) {
  if (!row.incumbent_ns || *row.incumbent_ns <= 0) return std::nullopt;
  auto best = fastest_rival(row);
  if (!best) return std::nullopt;
  return *best->ns / *row.incumbent_ns;
}

std::vector<FamilyScore> family_scores(const std::vector<ScoreRow>& rows, double bar) {
  std::vector<FamilyScore> out;
  std::map<std::string, double> log_sums;
  for (const auto& row : rows) {
    auto it = std::find_if(out.begin(), out.end(), [&](const FamilyScore& f) { return f.op == row.op; });
    if (it == out.end()) it = out.insert(out.end(), FamilyScore{row.op});
    ++it->rows;
    if (auto r = vs_fastest(row)) {
      ++it->compared;
      if (*r >= bar) ++it->at_bar;
      log_sums[row.op] += std::log(*r);
    } else if (row.incumbent_ns) {
      ++it->unrivalled;
    }
  }
  for (auto& f : out)
    if (f.compared > 0) {
      f.share_at_bar = double(f.at_bar) / f.compared;
      f.geomean = std::exp(log_sums[f.op] / f.compared);
    }
  return out;
}

std::vector<BelowBar> below_bar(const std::vector<ScoreRow>& rows, double bar) {
  std::vector<BelowBar> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto r = vs_fastest(rows[i]);
    if (!r || *r >= bar) continue;
    out.push_back({i, *r, (1 - *r) * 100, fastest_rival(rows[i])->name});
  }
  std::stable_sort(out.begin(), out.end(), [](const BelowBar& a, const BelowBar& b) { return a.gap_pct > b.gap_pct; });
  return out;
}

nlohmann::json row_json(const ScoreRow& row) {
  nlohmann::json rivals = nlohmann::json::array();
  for (const auto& r : row.rivals)
    rivals.push_back({{"name", r.name}, {"kind", r.kind}, {"ns", opt(r.ns)}, {"status", r.status}});
  auto best = fastest_rival(row);
  nlohmann::json out = {{"op", row.op},
          {"variant", row.variant},
          {"backend", row.backend},
          {"device_class", row.device_class},
          {"workload", row.workload},
          {"kernel", row.kernel},
          {"source_sha256", row.source_sha256},
          {"status", row.status},
          {"reason", row.reason},
          {"incumbent_ns", opt(row.incumbent_ns)},
          {"stderr_pct", opt(row.stderr_pct)},
          {"samples", row.samples},
          {"rivals", rivals},
          {"fastest", best ? nlohmann::json{{"name", best->name}, {"kind", best->kind}, {"ns", *best->ns}}
                           : nlohmann::json(nullptr)},
          {"vs_fastest", opt(vs_fastest(row))},
          {"roofline",
           {{"pct_bw", opt(row.pct_bw)},
            {"pct_flops", opt(row.pct_flops)},
            {"pct_bw_sheet", opt(row.pct_bw_sheet)},
            {"pct_flops_sheet", opt(row.pct_flops_sheet)},
            {"bound", row.bound},
            {"pct_roof", opt(row.pct_roof)},
            {"pct_roof_sheet", opt(row.pct_roof_sheet)}}},
          {"device", row.device},
          {"measured_at", row.measured_at},
          {"stale", row.stale}};
  if (!row.region.empty()) out["region"] = row.region;  // docs/library.md "Shape regions"
  return out;
}

util::Result<ScoreRow> row_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return util::fail(where, "expected an object");
  ScoreRow row;
  for (auto [key, field] : {std::pair{"op", &row.op}, {"variant", &row.variant}, {"backend", &row.backend},
                            {"device_class", &row.device_class}, {"workload", &row.workload}, {"status", &row.status}}) {
    if (!j.contains(key) || !j[key].is_string()) return util::fail(where + "." + key, "expected a string");
    *field = j[key].get<std::string>();
  }
  row.kernel = text(j, "kernel");
  row.source_sha256 = text(j, "source_sha256");
  row.region = text(j, "region");
  row.reason = text(j, "reason");
  row.device = text(j, "device");
  row.measured_at = text(j, "measured_at");
  row.incumbent_ns = opt_number(j, "incumbent_ns");
  row.stderr_pct = opt_number(j, "stderr_pct");
  row.samples = j.value("samples", int64_t(0));
  row.stale = j.value("stale", false);
  if (j.contains("roofline") && j["roofline"].is_object()) {
    const auto& r = j["roofline"];
    row.pct_bw = opt_number(r, "pct_bw");
    row.pct_flops = opt_number(r, "pct_flops");
    row.pct_bw_sheet = opt_number(r, "pct_bw_sheet");
    row.pct_flops_sheet = opt_number(r, "pct_flops_sheet");
    row.bound = text(r, "bound");
    row.pct_roof = opt_number(r, "pct_roof");
    row.pct_roof_sheet = opt_number(r, "pct_roof_sheet");
  }
  const auto rivals = j.value("rivals", nlohmann::json::array());
  for (size_t i = 0; i < rivals.size(); ++i) {
    const auto& r = rivals[i];
    if (!r.is_object() || !r.contains("name") || !r["name"].is_string())
      return util::fail(fmt::format("{}.rivals[{}].name", where, i), "expected a string");
    row.rivals.push_back({text(r, "name"), text(r, "kind"), opt_number(r, "ns"), r.value("status", "measured")});
  }
  return row;
}

nlohmann::json report_json(const std::vector<ScoreRow>& rows, const nlohmann::json& source, double bar) {
  nlohmann::json out = {{"schema", k_report_schema}, {"source", source}, {"bar", bar}};
  out["rows"] = nlohmann::json::array();
  for (const auto& r : rows) out["rows"].push_back(row_json(r));
  out["families"] = nlohmann::json::array();
  int compared = 0, at = 0;
  for (const auto& f : family_scores(rows, bar)) {
    compared += f.compared;
    at += f.at_bar;
    out["families"].push_back({{"op", f.op}, {"rows", f.rows}, {"compared", f.compared}, {"at_bar", f.at_bar},
                               {"unrivalled", f.unrivalled}, {"share_at_bar", opt(f.share_at_bar)},
                               {"geomean_vs_fastest", opt(f.geomean)}});
  }
  out["below_bar"] = nlohmann::json::array();
  for (const auto& b : below_bar(rows, bar)) {
    const auto& r = rows[b.row];
    out["below_bar"].push_back({{"op", r.op}, {"variant", r.variant}, {"backend", r.backend},
                                {"device_class", r.device_class}, {"workload", r.workload}, {"kernel", r.kernel},
                                {"vs_fastest", b.vs_fastest}, {"gap_pct", b.gap_pct}, {"fastest", b.fastest}});
  }
  out["totals"] = {{"rows", rows.size()}, {"compared", compared}, {"at_bar", at},
                   {"share_at_bar", compared > 0 ? nlohmann::json(double(at) / compared) : nlohmann::json(nullptr)}};
  return out;
}

util::Result<std::vector<ScoreRow>> rows_of_report(const nlohmann::json& report) {
  if (!report.is_object() || text(report, "schema") != k_report_schema)
    return util::fail("schema", std::string("expected a ") + k_report_schema + " report");
  if (!report.contains("rows") || !report["rows"].is_array()) return util::fail("rows", "expected an array");
  std::vector<ScoreRow> rows;
  for (size_t i = 0; i < report["rows"].size(); ++i) {
    auto row = row_from_json(report["rows"][i], fmt::format("rows[{}]", i));
    if (!row) return std::unexpected(row.error());
    rows.push_back(std::move(*row));
  }
  return rows;
}

std::vector<ScoreRow> merge_rows(std::vector<ScoreRow> rows, const nlohmann::json& previous) {
  auto old = rows_of_report(previous);
  if (!old) return rows;
  auto key = [](const ScoreRow& r) { return r.op + "/" + r.variant + "/" + r.backend + "/" + r.device_class + "/" + r.workload; };
  std::set<std::string> fresh;
  for (const auto& r : rows) fresh.insert(key(r));
  for (auto& r : *old)
    if (!fresh.contains(key(r))) rows.push_back(std::move(r));
  // Grouped by op, variant, backend and device class as a measurement lists them.
  std::stable_sort(rows.begin(), rows.end(), [](const ScoreRow& a, const ScoreRow& b) {
    return std::tie(a.op, a.variant, a.backend, a.device_class) < std::tie(b.op, b.variant, b.backend, b.device_class);
  });
  return rows;
}

}  // namespace kwb::library
