// kwb library report: the library's scorecard (docs/library.md "Scorecard"). With --measure the
// incumbents of this machine's device classes, their vendor baselines and the library's other
// kernels are evaluated here and now, as `kwb eval` would, and the report is stored in the
// workspace; without it the newest stored report is read back with its age and devices. Exit 0
// with a report (with --check: 1 when a row is below the bar or its incumbent failed here), 2 on
// usage errors.
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "app/commands.hpp"
#include "app/library_report_command.hpp"
#include "app/library_report_measure.hpp"
#include "app/spec_sources.hpp"
#include "app/workspace_access.hpp"
#include "core/filters.hpp"
#include "library/scorecard_store.hpp"

namespace kwb::app {

namespace {

struct ReportArgs {
  ReportScope scope;
  bool json = false, measure = false, check = false, init = false, no_rivals = false;
  double bar = library::k_default_bar;
};

int usage(const std::string& msg) {
  std::fprintf(stderr, "kwb library report: %s\n", msg.c_str());
  return 2;
}

int print(const ReportArgs& a, const nlohmann::json& report) {
  if (a.json) std::cout << report.dump(2) << "\n";
  else std::cout << library::report_table(report);
  if (!a.check) return 0;
  int failed = 0;
  for (const auto& r : report.value("rows", nlohmann::json::array())) failed += r.value("status", "") == "failed";
  return report.value("below_bar", nlohmann::json::array()).empty() && failed == 0 ? 0 : 1;
}

int run_report(ReportArgs a, util::Settings& settings) {
  a.scope.rivals = !a.no_rivals;
  auto db = open_workspace_db(settings, a.init);
  if (!db) return usage(db.error().what());
  auto repo = library::Repository::open_or_seed(library_path(settings), settings.get("kernels-dir"));
  if (!repo) return usage("library: " + repo.error().what());
  const auto dir = library::reports_dir(db->file());
  if (!a.measure) {
    if (!a.scope.op.empty() || !a.scope.backend.empty() || !a.scope.bench.empty() || !a.scope.rivals)
      return usage("--op, --backend, --bench and --no-rivals choose what --measure times; add --measure");
    auto stored = library::stored_report(dir, **repo);
    if (!stored) return usage(stored.error().what());
    return print(a, *stored);
  }
  auto catalog = load_catalog(settings);
  if (!catalog) return usage(catalog.error().what());
  if (!a.scope.op.empty())
    if (auto why = core::refuse_unknown("op", a.scope.op, catalog->ops())) return usage(*why);
  if (!a.scope.backend.empty())
    if (auto why = core::refuse_unknown("backend", a.scope.backend, core::backend_names())) return usage("--backend: " + *why);
  if (!a.scope.bench.empty()) {
    if (a.scope.op.empty()) return usage("--bench names workloads of one op: add --op");
    std::vector<std::string> names;
    for (const auto& w : catalog->find(a.scope.op)->bench_workloads) names.push_back(w.name);
    for (const auto& b : a.scope.bench)
      if (auto why = core::refuse_unknown("bench workload", b, names)) return usage("--bench: " + *why);
  }
  auto cpu = eval::cpu_device(*db, calibration_cache(settings));
  if (!cpu) return usage(cpu.error().what());
  auto opt = eval_options(settings);
  auto cuda = find_cuda_backend(*db, opt);
  auto factory = evaluation_factory(*catalog, opt, *cpu, cuda);
  auto progress = [&](const std::string& line) {
    if (!a.json) std::fprintf(stderr, "%s\n", line.c_str());
  };
  auto measured = measure_scorecard(*catalog, **repo, factory, cuda, a.scope, progress);
  if (!measured) return usage(measured.error().what());
  const std::string at = library::utc_stamp(std::chrono::system_clock::now());
  std::string devices;
  for (const auto& d : measured->devices) devices += (devices.empty() ? "" : "; ") + d;
  nlohmann::json source = {{"kind", "measured"},
                           {"measured_at", at},
                           {"devices", measured->devices},
                           {"library_commit", measured->library_commit},
                           {"detail", fmt::format("measured now on {} at library commit {:.12} (kwb library report --measure)",
                                                  devices.empty() ? std::string("no device") : devices,
                                                  measured->library_commit)}};
  auto previous = library::stored_report(dir, **repo);
  auto rows = previous ? library::merge_rows(std::move(measured->rows), *previous) : std::move(measured->rows);
  auto report = library::report_json(rows, source, a.bar);
  auto saved = library::save_report(dir, report);
  if (!saved) return usage("storing the report: " + saved.error().what());
  report["source"]["file"] = saved->string();
  return print(a, report);
}

}  // namespace

void add_library_report_command(CLI::App& library_cmd, util::Settings& settings, int& code) {
  auto a = std::make_shared<ReportArgs>();
  auto* cmd = library_cmd.add_subcommand(
      "report", "The library's scorecard: each incumbent against the fastest other implementation and its roofs "
                "(stored figures; --measure times them here and now)");
  cmd->add_flag("--measure", a->measure,
                "Evaluate the incumbents, the spec's vendor baselines and the library's other kernels on this machine "
                "now (as kwb eval does) and store the report in the workspace");
  cmd->add_option("--op", a->scope.op, "With --measure: only this op");
  cmd->add_option("--backend", a->scope.backend, "With --measure: only this backend (cpu, cuda, cuda-launcher)");
  cmd->add_option("--bench", a->scope.bench, "With --measure and --op: only these bench workloads")->delimiter(',');
  cmd->add_flag("--no-rivals", a->no_rivals, "With --measure: leave the library's other kernels out");
  cmd->add_option("--bar", a->bar, "A row passes at this many times the fastest other implementation")
      ->default_val(library::k_default_bar)
      ->check(CLI::Range(0.01, 100.0));
  cmd->add_flag("--check", a->check, "Exit 1 when a row is below the bar or its incumbent failed here (for CI)");
  cmd->add_flag("--json", a->json, "Print the kwb.library_report.v1 JSON");
  add_init_flag(*cmd, a->init);
  add_setting_flags(*cmd, settings);
  cmd->callback([a, &settings, &code] { code = run_report(*a, settings); });
}

}  // namespace kwb::app
