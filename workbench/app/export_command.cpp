// kwb export --out DIR: a CMake package of the library's incumbents (docs/export.md), written
// from the library's head commit (never its working tree).
#include <cstdio>

#include "app/commands.hpp"
#include "app/workspace_access.hpp"
#include "core/filters.hpp"
#include "app/library_support.hpp"
#include "app/spec_sources.hpp"
#include "library/repository.hpp"
#include "package/export.hpp"
#include "util/fs.hpp"

namespace kwb::app {

namespace {

struct ExportArgs {
  std::string out, cuda_class = "cuda-sm_90", cpu_class;
  std::vector<std::string> backends = {"cpu", "cuda"}, ops;
  bool replace = false, init = false;
};

int fail(const std::string& msg) {
  std::fprintf(stderr, "kwb export: %s\n", msg.c_str());
  return 2;
}

int run_export(const ExportArgs& a, const util::Settings& settings) {
  if (auto ws = require_workspace(settings, a.init); !ws) return fail(ws.error().what());
  auto catalog = load_catalog(settings);
  if (!catalog) return fail(catalog.error().what());
  for (const auto& op : a.ops)
    if (auto why = core::refuse_unknown("op", op, catalog->ops())) return fail("--op: " + *why);
  for (const auto& b : a.backends)
    if (auto why = core::refuse_unknown("backend", b, {"cpu", "cuda"})) return fail("--backend: " + *why);
  auto repo = library::Repository::open_or_seed(library_path(settings), settings.get("kernels-dir"));
  if (!repo) return fail("library: " + repo.error().what());
  auto head = (*repo)->head();
  if (!head) return fail(head.error().what());
  auto files = (*repo)->files(*head);
  if (!files) return fail(files.error().what());
  // The head commit's tree, materialised in a scratch folder for the generator.
  auto scratch = util::make_unique_dir(std::filesystem::temp_directory_path(), "kwb-export-");
  if (!scratch) return fail(scratch.error().what());
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{*scratch};
  for (const auto& [path, content] : *files) {
    std::error_code ec;
    std::filesystem::create_directories((*scratch / path).parent_path(), ec);
    if (auto w = util::write_file_atomic(*scratch / path, content); !w) return fail(w.error().what());
  }
  package::ExportRequest req;
  req.library_dir = *scratch;
  req.catalog = &*catalog;
  req.specs_dir = settings.get("specs-dir");
  req.out_dir = a.out;
  req.backends = a.backends;
  req.ops = a.ops;
  req.cpu_device_class = a.cpu_class;
  req.cuda_device_class = a.cuda_class;
  req.replace = a.replace;
  auto report = package::write_package(req);
  if (!report) return fail(report.error().what());
  std::printf("exported %zu functions from library commit %.12s to %s\n", report->variants.size(), head->c_str(),
              report->out_dir.c_str());
  for (const auto& v : report->variants)
    std::printf("  kwb::%-22s cpu: %-40s cuda: %s%s\n", v.function.c_str(),
                v.cpu_kernel.empty() ? "-" : v.cpu_kernel.c_str(), v.cuda_kernel.empty() ? "-" : v.cuda_kernel.c_str(),
                v.cuda_configs ? (" (" + std::to_string(v.cuda_configs) + " configs)").c_str() : "");
  for (const auto& s : report->skipped) std::printf("  skipped %s\n", s.c_str());
  std::printf("build: cmake -S %s -B %s/build && cmake --build %s/build && %s/build/kwb_example\n",
              report->out_dir.c_str(), report->out_dir.c_str(), report->out_dir.c_str(), report->out_dir.c_str());
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, util::Settings& settings, int& code) {
  auto a = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand("export", "Write a CMake package of the library's incumbent kernels (docs/export.md)");
  cmd->add_option("--out", a->out, "Package folder (absent or empty)")->required();
  cmd->add_option("--backend", a->backends, "Backends to include (repeatable; default cpu and cuda)");
  cmd->add_option("--op", a->ops, "Only these ops (repeatable; default every op)");
  cmd->add_option("--cuda-device-class", a->cuda_class, "Which CUDA incumbents to take (falls back to 'any')")
      ->default_val("cuda-sm_90");
  cmd->add_option("--cpu-device-class", a->cpu_class,
                  "Which CPU incumbents to take: cpu-x86_64-v1..v4, cpu-<arch> or any (default: this machine's, e.g. "
                  "cpu-x86_64-v3; falls back to 'any')");
  cmd->add_flag("--replace", a->replace, "Replace a previous export in --out (its build folders are kept)");
  add_init_flag(*cmd, a->init);
  add_setting_flags(*cmd, settings);
  cmd->callback([a, &settings, &code] { code = run_export(*a, settings); });
}

}  // namespace kwb::app
