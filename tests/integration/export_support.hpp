#pragma once
// The kwb export tests' helpers (test_export.cpp, test_export_x86_levels.cpp): the seed library
// written out as a library tree, an export request, building the exported package with cmake
// and running its example program.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../unit/common/temp_dir.hpp"
#include "library/device_class.hpp"
#include "library/dispatch.hpp"
#include "library/seed.hpp"
#include "package/cxx.hpp"
#include "package/export.hpp"
#include "spec/launch_plan.hpp"
#include "spec/loader.hpp"
#include "support.hpp"
#include "util/fs.hpp"

namespace kwb::test {

namespace fs = std::filesystem;

inline const kwb::spec::Catalog& catalog() {
  static const auto c = kwb::spec::Catalog::load(source_dir() / "specs");
  if (!c) throw std::runtime_error(c.error().what());
  return *c;
}

// The seed library (kernels/ + its dispatch.json) written out as a library tree; `edit` may
// change the files first.
inline fs::path seed_library(const fs::path& dir, const std::function<void(std::map<std::string, std::string>&)>& edit = {}) {
  auto files = kwb::library::seed_files(source_dir() / "kernels");
  if (!files) throw std::runtime_error(files.error().what());
  if (edit) edit(*files);
  for (const auto& [path, text] : *files)
    if (auto w = kwb::util::write_file_atomic(dir / path, text); !w) throw std::runtime_error(w.error().what());
  return dir;
}

// Replaces the recorded configs of the dispatch entry of `kernel`.
inline void set_configs(std::map<std::string, std::string>& files, const std::string& kernel,
                 std::vector<kwb::library::DispatchConfig> configs) {
  auto d = kwb::library::parse_dispatch(files["dispatch.json"]);
  if (!d) throw std::runtime_error(d.error().what());
  for (auto& e : d->entries)
    if (e.kernel == kernel) e.configs = configs;
  files["dispatch.json"] = kwb::library::dispatch_text(*d);
}

inline kwb::package::ExportRequest request(const fs::path& library, const fs::path& out) {
  kwb::package::ExportRequest r;
  r.library_dir = library;
  r.catalog = &catalog();
  r.specs_dir = source_dir() / "specs";
  r.out_dir = out;
  return r;
}

inline CommandResult sh(const std::string& cmd) { return run_command(cmd + " 2>&1"); }

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Records configs for every CUDA kernel with tunables, as promotion would: the spec's bench
// workloads in order take the values of each kwb:tune list in turn.
inline void record_configs(std::map<std::string, std::string>& files) {
  auto d = kwb::library::parse_dispatch(files["dispatch.json"]);
  if (!d) throw std::runtime_error(d.error().what());
  for (auto& e : d->entries) {
    if (e.backend != "cuda") continue;
    auto plan = kwb::spec::parse_launch_plan(files[e.kernel], e.kernel);
    if (!plan) throw std::runtime_error(plan.error().what());
    if (plan->tunables.empty()) continue;
    const auto& bench = catalog().find(e.op)->bench_workloads;
    for (size_t i = 0; i < bench.size(); ++i) {
      kwb::library::DispatchConfig c{bench[i].name, bench[i].params, {}, 1000.0 * double(i + 1)};
      for (const auto& t : plan->tunables) c.tune[t.name] = t.values[i % t.values.size()];
      e.configs.push_back(std::move(c));
    }
  }
  files["dispatch.json"] = kwb::library::dispatch_text(*d);
}

// The seed library, with recorded configs, exported (cpu and cuda entries) into dir/pkg.
// KWB_TEST_EXPORT_KEEP=DIR keeps a copy in DIR/pkg (to build it on a GPU machine:
// `cmake -S DIR/pkg -B build -DKWB_WITH_CUDA=ON`).
inline kwb::package::ExportReport export_seed(const TempDir& dir) {
  auto report = kwb::package::write_package(request(seed_library(dir / "library", record_configs), dir / "pkg"));
  if (!report) throw std::runtime_error("export: " + report.error().what());
  if (const char* keep = std::getenv("KWB_TEST_EXPORT_KEEP"); keep && *keep) {
    std::error_code ec;
    fs::remove_all(fs::path(keep) / "pkg", ec);
    fs::create_directories(keep, ec);
    fs::copy(dir / "pkg", fs::path(keep) / "pkg", fs::copy_options::recursive, ec);
  }
  return *report;
}

// Configures and builds the package in `build`; "" or the failure with cmake's output.
inline std::string build_package(const fs::path& pkg, const fs::path& build, const std::string& options, const char* what) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = sh("PATH=$PATH:/usr/local/cuda/bin cmake -S " + shell_quote(pkg.string()) + " -B " + shell_quote(build.string()) +
              " -G Ninja " + options + " && cmake --build " + shell_quote(build.string()) + " -j2");
  std::cout << "[ export   ] " << what << " configure + build (-j2): " << seconds_since(t0) << " s\n";
  return r.exit_code == 0 ? "" : "package build failed:\n" + r.out;
}

// The example's lines: function -> workload count of each PASS line for `backend`; FAIL lines.
struct ExampleRun {
  int exit_code = -1;
  std::string out;
  std::map<std::string, int> passed;
  std::vector<std::string> failed;
};

inline ExampleRun run_example(const fs::path& exe, const std::string& backend) {
  ExampleRun e;
  auto r = sh(shell_quote(exe.string()));
  e.exit_code = r.exit_code, e.out = r.out;
  const std::regex pass("^PASS (\\w+) " + backend + ": (\\d+) workloads");
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, pass)) e.passed[m[1]] = std::stoi(m[2]);
    if (l.starts_with("FAIL")) e.failed.push_back(l);
  }
  return e;
}

}  // namespace kwb::test
