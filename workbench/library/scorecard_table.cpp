// The scorecard as text (kwb library report without --json): where the figures come from, one
// line per row, the families, the rows below the bar.
#include <fmt/format.h>

#include "library/scorecard.hpp"

namespace kwb::library {

namespace {

std::string str(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() && !j[key].get<std::string>().empty() ? j[key].get<std::string>() : "-";
}
std::string num(const nlohmann::json& j, const char* key, const char* format) {
  if (!j.contains(key) || !j[key].is_number()) return "-";
  return fmt::format(fmt::runtime(format), j[key].get<double>());
}
std::string us(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return "-";
  return fmt::format("{:.2f}", j[key].get<double>() / 1e3);
}

// "mem 74.1" / "cmp 12.0": % of the binding calibrated roof.
std::string roof_text(const nlohmann::json& roof) {
  if (!roof.contains("pct_roof") || !roof["pct_roof"].is_number()) return "-";
  return fmt::format("{} {:.1f}", roof.value("bound", "") == "compute" ? "cmp" : "mem", roof["pct_roof"].get<double>());
}

}  // namespace

std::string report_table(const nlohmann::json& report) {
  std::string out;
  const auto& src = report.value("source", nlohmann::json::object());
  out += fmt::format("library scorecard ({}): {}\n", str(src, "kind"), str(src, "detail"));
  out += fmt::format("bar: {:.2f}x the fastest other implementation (vendor baselines and other library kernels); "
                     "% of the calibrated (bw, fl) and data-sheet (-ds) bandwidth and flop rate, and of the roof that binds "
                     "(calibrated: memory or compute)\n\n",
                     report.value("bar", k_default_bar));
  out += fmt::format("{:<12} {:<6} {:<13} {:<15} {:<16} {:>11} {:>11} {:<26} {:>8} {:>6} {:>6} {:>6} {:>6} {:>8} {}\n",
                     "op", "var", "backend", "device class", "workload", "incumb. us", "fastest us", "fastest", "vs fast",
                     "%bw", "%fl", "%bw-ds", "%fl-ds", "%roof", "status");
  for (const auto& r : report.value("rows", nlohmann::json::array())) {
    const auto& roof = r.value("roofline", nlohmann::json::object());
    const auto& f = r.contains("fastest") && r["fastest"].is_object() ? r["fastest"] : nlohmann::json::object();
    std::string status = str(r, "status") + (r.value("stale", false) ? " (stale)" : "");
    if (r.value("status", "") != "measured" && r.contains("reason") && !r["reason"].get<std::string>().empty())
      status += ": " + r["reason"].get<std::string>();
    out += fmt::format("{:<12} {:<6} {:<13} {:<15} {:<16} {:>11} {:>11} {:<26} {:>8} {:>6} {:>6} {:>6} {:>6} {:>8} {}\n",
                       str(r, "op"), str(r, "variant"), str(r, "backend"), str(r, "device_class"),
                       str(r, "workload") + (r.contains("region") ? " (" + str(r, "region") + ")" : ""), us(r, "incumbent_ns"), us(f, "ns"), str(f, "name"), num(r, "vs_fastest", "{:.3f}x"),
                       num(roof, "pct_bw", "{:.1f}"), num(roof, "pct_flops", "{:.1f}"), num(roof, "pct_bw_sheet", "{:.1f}"),
                       num(roof, "pct_flops_sheet", "{:.1f}"), roof_text(roof), status);
  }
  out += "\nper op family: rows at the bar among those compared (unrivalled: no other implementation timed)\n";
  for (const auto& f : report.value("families", nlohmann::json::array())) {
    std::string share = f["share_at_bar"].is_number() ? fmt::format("{:.1f}%", f["share_at_bar"].get<double>() * 100) : "-";
    out += fmt::format("  {:<14} {}/{} at the bar ({}), geomean {}, {} unrivalled, {} rows\n", str(f, "op"),
                       f.value("at_bar", 0), f.value("compared", 0), share, num(f, "geomean_vs_fastest", "{:.3f}x"),
                       f.value("unrivalled", 0), f.value("rows", 0));
  }
  const auto& below = report.value("below_bar", nlohmann::json::array());
  out += fmt::format("\nbelow the bar: {}\n", below.empty() ? std::string("none") : std::to_string(below.size()));
  for (const auto& b : below)
    out += fmt::format("  {}/{}/{} {} {}: {:.3f}x, {:.1f}% behind {}\n", str(b, "op"), str(b, "variant"),
                       str(b, "backend"), str(b, "device_class"), str(b, "workload"), b.value("vs_fastest", 0.0),
                       b.value("gap_pct", 0.0), str(b, "fastest"));
  return out;
}

}  // namespace kwb::library
