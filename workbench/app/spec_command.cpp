// kwb spec new OP | check DIR | add DIR: start a spec folder, say everything wrong with one, add
// one to the library (docs/specs.md, "Adding an op"). `spec add` lives in spec_add_command.cpp.
#include <cstdio>
#include <fmt/format.h>
#include <iostream>
#include <tuple>

#include "app/commands.hpp"
#include "app/library_support.hpp"
#include "app/spec_sources.hpp"
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
  auto report = speccheck::check_path(f.dir, options, spec_reference_access(settings));
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

void add_spec_add_command(CLI::App& spec, util::Settings& settings, int& code);

void add_spec_command(CLI::App& app, util::Settings& settings, int& code) {
  auto* cmd = app.add_subcommand("spec", "Work on operator specs: write a new folder, check one, add one to the library "
                                         "(kwb specs lists them)");
  cmd->require_subcommand(1);
  add_spec_add_command(*cmd, settings, code);

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
