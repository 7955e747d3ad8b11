// kwb tuning list | export | import: the workspace's tuning records (docs/library.md).
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "app/workspace_access.hpp"
#include "library/tuning_file.hpp"
#include "store/tuning_repository.hpp"
#include "util/fs.hpp"

namespace kwb::app {

namespace {

struct TuningArgs {
  std::string op, file;
  bool stale = false, json = false, init = false;
};

int fail(const char* cmd, const std::string& msg) {
  std::fprintf(stderr, "kwb tuning %s: %s\n", cmd, msg.c_str());
  return 2;
}

util::Result<store::Database> open_db(const TuningArgs& a, const util::Settings& settings) {
  return open_workspace_db(settings, a.init);
}

int run_list(const TuningArgs& a, const util::Settings& settings) {
  auto db = open_db(a, settings);
  if (!db) return fail("list", db.error().what());
  auto records = store::TuningRepository(*db).find({a.op, "", "", "", true});
  if (!records) return fail("list", records.error().what());
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : *records)
      if (a.stale || !r.stale)
        out.push_back({{"op", r.op}, {"variant", r.variant}, {"backend", r.backend}, {"workload", r.workload},
                       {"params", r.params}, {"source_sha256", r.source_sha256}, {"config", r.config},
                       {"device", r.identity.device}, {"toolchain", r.identity.toolchain},
                       {"workbench", r.identity.workbench}, {"spec_version", r.identity.spec_version},
                       {"median_ns", r.median_ns}, {"stderr_pct", r.stderr_pct},
                       {"samples", r.samples}, {"candidate", r.candidate}, {"stale", r.stale},
                       {"measured_at", r.measured_at}});
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%-12s %-6s %-5s %-12s %-14s %14s %8s  %-6s %s\n", "op", "var", "back", "workload", "source",
              "median ns", "stderr", "state", "measured by");
  for (const auto& r : *records) {
    if (r.stale && !a.stale) continue;
    std::printf("%-12s %-6s %-5s %-12s %-14.12s %14.0f %7.2f%%  %-6s %s\n", r.op.c_str(), r.variant.c_str(),
                r.backend.c_str(), r.workload.c_str(), r.source_sha256.c_str(), r.median_ns, r.stderr_pct,
                r.stale ? "STALE" : "ok", r.candidate.empty() ? "(imported)" : r.candidate.c_str());
  }
  return 0;
}

int run_export(const TuningArgs& a, const util::Settings& settings) {
  auto db = open_db(a, settings);
  if (!db) return fail("export", db.error().what());
  auto records = store::TuningRepository(*db).find({a.op, "", "", "", false});  // stale records never travel
  if (!records) return fail("export", records.error().what());
  std::string text = library::tuning_file_text(*records);
  if (a.file.empty() || a.file == "-") {
    std::cout << text;
  } else if (auto w = util::write_file_atomic(a.file, text); !w) {
    return fail("export", w.error().what());
  } else {
    std::printf("wrote %zu records to %s\n", records->size(), a.file.c_str());
  }
  return 0;
}

int run_import(const TuningArgs& a, const util::Settings& settings) {
  auto text = util::read_file(a.file);
  if (!text) return fail("import", text.error().what());
  auto records = library::parse_tuning_file(*text, a.file);
  if (!records) return fail("import", records.error().what());
  auto db = open_db(a, settings);
  if (!db) return fail("import", db.error().what());
  if (auto r = store::TuningRepository(*db).put(*records); !r) return fail("import", r.error().what());
  std::printf("imported %zu records from %s\n", records->size(), a.file.c_str());
  return 0;
}

}  // namespace

void add_tuning_command(CLI::App& app, util::Settings& settings, int& code) {
  auto* tuning = app.add_subcommand("tuning", "Tuning records: list, export, import (docs/library.md)");
  tuning->require_subcommand(1);
  auto a = std::make_shared<TuningArgs>();
  auto* list = tuning->add_subcommand("list", "List the workspace's tuning records");
  list->add_option("--op", a->op, "Only this op");
  list->add_flag("--stale", a->stale, "Include stale records (measured under another identity)");
  list->add_flag("--json", a->json, "Print JSON");
  add_init_flag(*list, a->init);
  add_setting_flags(*list, settings);
  list->callback([a, &settings, &code] { code = run_list(*a, settings); });
  auto* exp = tuning->add_subcommand("export", "Write the current (non-stale) records as a kwb.tuning.v1 file");
  exp->add_option("--out", a->file, "File to write (default: standard output)");
  exp->add_option("--op", a->op, "Only this op");
  add_init_flag(*exp, a->init);
  add_setting_flags(*exp, settings);
  exp->callback([a, &settings, &code] { code = run_export(*a, settings); });
  auto* imp = tuning->add_subcommand("import", "Validate a kwb.tuning.v1 file and add its records");
  imp->add_option("file", a->file, "The file")->required();
  add_init_flag(*imp, a->init);
  add_setting_flags(*imp, settings);
  imp->callback([a, &settings, &code] { code = run_import(*a, settings); });
}

}  // namespace kwb::app
