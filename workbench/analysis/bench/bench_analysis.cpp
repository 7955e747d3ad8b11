// bench_analysis: static analysis time against compile time for every shipped kernel
// (docs/benchmarks/analysis.md). Not a test: it reports figures.
//
//   build/bin/bench_analysis [--runs N] [--source-dir DIR]
//
// CPU kernels (kernels/<op>/cpu/*.cpp) are compiled with g++ and CpuToolchain's flags (outside
// the sandbox, which adds ~15 ms); CUDA kernels (kernels/<op>/cuda/*.cu) with NVRTC loaded from
// the CUDA installation (-D of the launch plan's first tunable configuration). Analysis runs uncached
// (the result cache is cleared before each run) against the warm precompiled headers; the
// one-off cost of building them is reported separately.
#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analyzer.hpp"
#include "core/backend.hpp"
#include "spec/launch_plan.hpp"
#include "spec/loader.hpp"
#include "util/fs.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double time_runs(int runs, const std::function<bool()>& f) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto s = Clock::now();
    if (!f()) return -1;
    t.push_back(ms_since(s));
  }
  return median(t);
}

bool run_gxx(const fs::path& src, const fs::path& out) {
  std::vector<std::string> args = {"/usr/bin/g++", "-std=c++20", "-O3", "-march=native", "-fPIC", "-shared",
                                   src.string(), "-o", out.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return false;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// NVRTC, loaded like the workbench loads it (no link-time CUDA dependency).
struct Nvrtc {
  using Create = int (*)(void**, const char*, const char*, int, const char* const*, const char* const*);
  using Compile = int (*)(void*, int, const char* const*);
  using Destroy = int (*)(void**);
  Create create = nullptr;
  Compile compile = nullptr;
  Destroy destroy = nullptr;
  bool load(const fs::path& cuda) {
    void* h = dlopen((cuda / "lib64/libnvrtc.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libnvrtc.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
    create = reinterpret_cast<Create>(dlsym(h, "nvrtcCreateProgram"));
    compile = reinterpret_cast<Compile>(dlsym(h, "nvrtcCompileProgram"));
    destroy = reinterpret_cast<Destroy>(dlsym(h, "nvrtcDestroyProgram"));
    return create && compile && destroy;
  }
  bool run(const std::string& src, const std::vector<std::string>& opts) const {
    void* prog = nullptr;
    if (create(&prog, src.c_str(), "candidate.cu", 0, nullptr, nullptr) != 0) return false;
    std::vector<const char*> o;
    for (auto& s : opts) o.push_back(s.c_str());
    int r = compile(prog, int(o.size()), o.data());
    destroy(&prog);
    return r == 0;
  }
};

struct Kernel {
  fs::path source;
  std::string op, variant, backend;
  kwb::core::Backend form;
};

std::vector<Kernel> shipped(const fs::path& root) {
  std::vector<Kernel> out;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(root / "kernels", ec)) {
    auto ext = e.path().extension();
    std::string backend = e.path().parent_path().filename();
    auto form = kwb::core::parse_backend(backend);  // cpu/*.cpp and cuda/*.cu
    if (!form || *form == kwb::core::Backend::cuda_launcher || ext != kwb::core::source_extension(*form)) continue;
    Kernel k{e.path(), e.path().parent_path().parent_path().filename(), "", backend, *form};
    auto meta = e.path();
    meta.replace_extension(".json");
    if (auto text = kwb::util::read_file(meta)) {
      auto j = nlohmann::json::parse(*text, nullptr, false);
      if (!j.is_discarded()) k.variant = j.value("variant", "");
    }
    out.push_back(k);
  }
  std::sort(out.begin(), out.end(), [](const Kernel& a, const Kernel& b) { return a.source < b.source; });
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7;
  fs::path root = KWB_BENCH_SOURCE_DIR;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--source-dir" && i + 1 < argc) root = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_analysis [--runs N] [--source-dir DIR]\n");
      return 2;
    }
  }
  auto catalog = kwb::spec::Catalog::load(root / "specs");
  if (!catalog) {
    std::fprintf(stderr, "%s\n", catalog.error().what().c_str());
    return 1;
  }
  fs::path cuda = "/usr/local/cuda";
  Nvrtc nvrtc;
  bool have_nvrtc = nvrtc.load(cuda);
  std::string tmp = (fs::temp_directory_path() / "kwb-bench-analysis-XXXXXX").string();
  if (!mkdtemp(tmp.data())) return 1;
  // A fresh private cache: the first analysis of each mode builds its PCH.
  kwb::analysis::set_cache_dir({});
  for (auto form : {kwb::core::Backend::cpu, kwb::core::Backend::cuda}) {
    const std::string backend(kwb::core::backend_name(form));
    auto t = Clock::now();
    bool ok = kwb::analysis::warm_up(backend);
    std::printf("precompiled headers (%s): %s in %.0f ms (once per process, or once per cache directory)\n", backend.c_str(),
                ok ? "built" : "not available", ms_since(t));
  }
  std::printf("\nmedian of %d runs, ms\n\n", runs);
  std::printf("| kernel | backend | analysis | compile | analysis / compile | findings | parsed with |\n");
  std::printf("|---|---|---:|---:|---:|---:|---|\n");
  std::vector<double> ratios;
  for (const auto& k : shipped(root)) {
    const auto* spec = catalog->find(k.op);
    if (!spec) continue;
    const kwb::core::Variant* variant = k.variant.empty() ? &spec->variants.front() : spec->find_variant(k.variant);
    auto source = kwb::util::read_file(k.source);
    if (!variant || !source) continue;
    kwb::analysis::Request req{*spec, *variant, k.backend, *source, k.source.filename().string(), {}, {}};
    if (k.form == kwb::core::Backend::cuda) {  // the bound launch plan and the first tunable configuration
      auto plan = kwb::spec::parse_launch_plan(*source, k.source.filename().string());
      if (!plan || !kwb::spec::bind_launch_plan(*plan, *spec, k.source.filename().string(), variant)) continue;
      req.launches = kwb::analysis::launches_of(*plan);
      req.flags = kwb::spec::config_defines(kwb::spec::tune_configs(*plan).front());
    }
    const std::vector<std::string>& flags = req.flags;
    kwb::analysis::Report last;
    double analysis = time_runs(runs, [&] {
      kwb::analysis::clear_cache();
      last = kwb::analysis::analyze(req);
      return true;
    });
    double compile = -1;
    if (k.form == kwb::core::Backend::cpu) {
      compile = time_runs(std::max(3, runs / 2), [&] { return run_gxx(k.source, fs::path(tmp) / "k.so"); });
    } else if (have_nvrtc) {
      std::vector<std::string> opts = {"--gpu-architecture=sm_90", "-std=c++17",
                                       "--include-path=" + (cuda / "include").string()};
      opts.insert(opts.end(), flags.begin(), flags.end());
      compile = time_runs(std::max(3, runs / 2), [&] { return nvrtc.run(*source, opts); });
    }
    std::string shown = last.available ? std::to_string(last.findings.size()) : "unavailable";
    std::string ratio = compile > 0 && last.available ? std::to_string(int(100 * analysis / compile + 0.5)) + " %" : "-";
    if (compile > 0 && last.available) ratios.push_back(analysis / compile);
    std::printf("| %s/%s/%s | %s | %.1f | %s | %s | %s | %s |\n", k.op.c_str(), k.backend.c_str(),
                k.source.filename().c_str(), k.form == kwb::core::Backend::cpu ? "g++ -O3" : "NVRTC", analysis,
                compile > 0 ? std::to_string(int(compile + 0.5)).c_str() : "-", ratio.c_str(), shown.c_str(),
                last.parsed_with.empty() ? "-" : last.parsed_with.c_str());
    for (const auto& f : last.findings) std::printf("  finding: %s\n", kwb::analysis::format_finding(f).c_str());
    if (!last.available) std::printf("  unavailable: %s\n", last.unavailable_reason.c_str());
  }
  if (!ratios.empty())
    std::printf("\nmedian analysis / compile: %.0f %%\n", 100 * median(ratios));
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return 0;
}
