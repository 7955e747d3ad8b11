// kwb retime OP: evaluates the library's incumbents of an op again on this machine (every bench
// workload, the timing loop's sample floor) and replaces their tuning records, e.g. after
// records timed under load (docs/library.md "Re-timing an incumbent"). Records feed the
// leaderboard and export; decisions never rest on them. Exit 0 when every incumbent was
// re-timed, 1 when one was not accepted or could not run here, 2 on usage errors.
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "app/commands.hpp"
#include "app/workspace_access.hpp"
#include "core/filters.hpp"
#include "app/library_support.hpp"
#include "app/spec_sources.hpp"
#include "library/referee.hpp"
#include "store/tuning_repository.hpp"
#include "util/hash.hpp"

namespace kwb::app {

namespace {

struct RetimeArgs {
  std::string op, backend;
  bool json = false, init = false;
};

int run_retime(const RetimeArgs& a, util::Settings& settings) {
  auto usage = [](const std::string& msg) {
    std::fprintf(stderr, "kwb retime: %s\n", msg.c_str());
    return 2;
  };
  auto db = open_workspace_db(settings, a.init);
  if (!db) return usage(db.error().what());
  auto catalog = load_catalog(settings);
  if (!catalog) return usage(catalog.error().what());
  if (auto why = core::refuse_unknown("op", a.op, catalog->ops())) return usage(*why);
  if (!a.backend.empty())
    if (auto why = core::refuse_unknown("backend", a.backend, core::backend_names())) return usage("--backend: " + *why);
  auto repo = library::Repository::open_or_seed(library_path(settings), settings.get("kernels-dir"));
  if (!repo) return usage("library: " + repo.error().what());
  auto kernels = library::incumbents_of(**repo, a.op, a.backend);
  if (!kernels) return usage(kernels.error().what());
  auto cpu = eval::cpu_device(*db, calibration_cache(settings));
  if (!cpu) return usage(cpu.error().what());
  auto opt = eval_options(settings);
  auto factory = evaluation_factory(*catalog, opt, *cpu, find_cuda_backend(*db, opt));
  store::TuningRepository tuning(*db);
  nlohmann::json report = nlohmann::json::array();
  int failed = 0;
  for (const auto& k : *kernels) {
    store::CandidateRecord like;
    like.op = k.op;
    like.backend = k.backend;
    core::Verdict v = measure_library_kernel(factory, like, k);
    nlohmann::json row = {{"kernel", k.source_name}, {"note", k.note}, {"status", core::status_name(v.status)},
                          {"workloads", nlohmann::json::array()}};
    if (v.status != core::Status::accepted) {
      ++failed;
      row["reason"] = v.reason;
      report.push_back(row);
      if (!a.json) std::printf("%s: %s: %s\n", k.note.c_str(), std::string(core::status_name(v.status)).c_str(), v.reason.c_str());
      continue;
    }
    auto records = library::records_of(v, util::sha256_hex(k.source), "retime");
    if (auto put = tuning.put(records); !put) return usage("storing the records: " + put.error().what());
    if (!a.json) std::printf("%s: re-timed on %s\n", k.note.c_str(), v.device.c_str());
    for (const auto& r : records) {
      row["workloads"].push_back({{"workload", r.workload}, {"median_ns", r.median_ns}, {"stderr_pct", r.stderr_pct},
                                  {"samples", r.samples}});
      if (!a.json)
        std::printf("  %-12s median %12.0f ns  stderr %5.2f%%  %d samples\n", r.workload.c_str(), r.median_ns,
                    r.stderr_pct, int(r.samples));
    }
    report.push_back(row);
  }
  if (a.json) std::cout << nlohmann::json{{"op", a.op}, {"incumbents", report}}.dump(2) << "\n";
  return failed > 0 ? 1 : 0;
}

}  // namespace

void add_retime_command(CLI::App& app, util::Settings& settings, int& code) {
  auto a = std::make_shared<RetimeArgs>();
  auto* cmd = app.add_subcommand("retime", "Time the library's incumbents of an op again here and replace their tuning records");
  cmd->add_option("op", a->op, "Operator")->required();
  cmd->add_option("--backend", a->backend, "Only this backend (cpu, cuda, cuda-launcher)");
  cmd->add_flag("--json", a->json, "Print the records as JSON");
  add_init_flag(*cmd, a->init);
  add_setting_flags(*cmd, settings);
  cmd->callback([a, &settings, &code] { code = run_retime(*a, settings); });
}

}  // namespace kwb::app
