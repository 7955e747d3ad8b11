// kwb spec new OP | kwb spec check DIR: start a spec folder, and say everything wrong with one
// (docs/specs.md, "Checking a spec").
#include <cstdio>
#include <fmt/format.h>
#include <iostream>
#include <tuple>

#include "app/commands.hpp"
#include "app/library_support.hpp"
#include "eval/reference_host.hpp"
#include "speccheck/checker.hpp"
#include "speccheck/skeleton.hpp"

namespace kwb::app {

namespace {

struct CheckFlags {
  std::string dir;
  bool json = false, strict = false, no_reference = false;
  std::string cpu_memory, cuda_memory;
  uint64_t seed = speccheck::ReferenceCheckOptions{}.seed;
};

// The references as evaluations reach them (built by eval::ReferenceHost in the compile sandbox
// and run in a reference process), compiled with -Wall -Wextra: one build serves the warnings
// check and the runs.
speccheck::ReferenceAccess reference_access(const util::Settings& settings) {
  eval::EvalOptions opt = eval_options(settings);
  eval::ReferenceHostConfig cfg;
  cfg.runner = opt.runner;
  cfg.bwrap = opt.bwrap;
  cfg.workspace = std::filesystem::temp_directory_path() / "kwb-speccheck";
  cfg.cxx = opt.cxx;
  cfg.timeout_ms = opt.reference_timeout_ms;
  cfg.cache_dir = opt.reference_cache;
  auto host = std::make_shared<eval::ReferenceHost>(cfg);
  const std::vector<std::string> warnings = {"-Wall", "-Wextra"};
  auto build = [host, warnings](const core::Spec& spec) -> util::Result<speccheck::ReferenceBuild> {
    auto b = host->build(spec, warnings);
    if (!b) return std::unexpected(b.error());
    return speccheck::ReferenceBuild{b->ok, b->diagnostics, b->reason};
  };
  auto open = [host, warnings](const core::Spec& spec) { return host->open(spec, warnings); };
  return {build, open};
}

int run_check(const CheckFlags& f, const util::Settings& settings) {
  speccheck::CheckOptions options;
  options.reference_checks = !f.no_reference;
  options.reference.seed = f.seed;
  for (auto [text, limit, flag] : {std::tuple{&f.cpu_memory, &options.limits.cpu_bytes, "--cpu-memory"},
                                   std::tuple{&f.cuda_memory, &options.limits.cuda_bytes, "--cuda-memory"}}) {
    if (text->empty()) continue;
    auto size = speccheck::parse_size(*text);
    if (!size) return std::fprintf(stderr, "kwb spec check: %s: %s\n", flag, size.error().what().c_str()), 2;
    *limit = *size;
  }
  auto report = speccheck::check_path(f.dir, options, reference_access(settings));
  if (!report) return std::fprintf(stderr, "kwb spec check: %s\n", report.error().what().c_str()), 2;
  const size_t errors = speccheck::count(report->problems, speccheck::Severity::error);
  const size_t warnings = speccheck::count(report->problems, speccheck::Severity::warning);
  if (f.json) {
    std::cout << speccheck::problems_json(report->problems).dump(2) << "\n";
  } else {
    for (const auto& p : report->problems) std::cout << speccheck::format_problem(p) << "\n";
    std::cout << fmt::format("checked {} spec{}{}: {} error{}, {} warning{}\n", report->folders.size(),
                             report->folders.size() == 1 ? "" : "s",
                             f.no_reference ? " (without the reference checks)" : "", errors, errors == 1 ? "" : "s",
                             warnings, warnings == 1 ? "" : "s");
  }
  return errors > 0 || (f.strict && warnings > 0) ? 1 : 0;
}

}  // namespace

void add_spec_command(CLI::App& app, util::Settings& settings, int& code) {
  auto* cmd = app.add_subcommand("spec", "Write a new spec folder, or check one");
  cmd->require_subcommand(1);

  auto op = std::make_shared<std::string>();
  auto parent = std::make_shared<std::string>(".");
  auto* create = cmd->add_subcommand("new", "Write a commented skeleton spec folder DIR/OP (spec.json, reference.cpp)");
  create->add_option("op", *op, "The op's name ([a-z][a-z0-9_]*)")->required();
  create->add_option("--dir", *parent, "Create the folder OP under this folder (default: the current folder)");
  create->callback([op, parent, &code] {
    auto dir = speccheck::write_skeleton(*parent, *op);
    if (!dir) {
      std::fprintf(stderr, "kwb spec new: %s\n", dir.error().what().c_str());
      code = 2;
      return;
    }
    std::printf("wrote %s/spec.json and %s/reference.cpp\nnext: fill in the TODOs, then kwb spec check %s\n",
                dir->c_str(), dir->c_str(), dir->c_str());
  });

  auto flags = std::make_shared<CheckFlags>();
  auto* check = cmd->add_subcommand("check", "Report every problem of a spec folder (or of each folder of a catalog)");
  check->add_option("dir", flags->dir, "A spec folder (spec.json + reference.cpp) or a folder of them")->required();
  check->add_flag("--json", flags->json, "Print the problems as JSON: [{file, field, severity, message}]");
  check->add_flag("--strict", flags->strict, "Warnings fail the check too");
  check->add_flag("--no-reference", flags->no_reference,
                  "Skip the checks that build and run the reference (schema, memory, coverage, roofline only)");
  check->add_option("--cpu-memory", flags->cpu_memory,
                    "Tensor memory a workload may take on the cpu device class (default: half this machine's memory)");
  check->add_option("--cuda-memory", flags->cuda_memory,
                    "Tensor memory a workload may take on the cuda device class (default: 139GiB, an H200)");
  check->add_option("--seed", flags->seed, "Seed of the inputs the reference checks draw (the runs are reproducible)");
  add_setting_flags(*check, settings);
  check->callback([flags, &settings, &code] { code = run_check(*flags, settings); });
}

}  // namespace kwb::app
