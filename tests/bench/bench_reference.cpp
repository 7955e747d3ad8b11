// The cost of running references as spec data (issue 16): the same reference source, called in
// process (as the compiled-in registry did) and through the sandboxed reference process
// (copies of the inputs in, of the outputs out, one pipe round trip). Best of 3 per workload.
//   build/bin/bench_reference [WORKSPACE]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "core/reference.hpp"
#include "eval/reference_host.hpp"
#include "spec/loader.hpp"

namespace kwb::reference {
void gemm(const core::ReferenceArgs&);
void softmax(const core::ReferenceArgs&);
void row_sum(const core::ReferenceArgs&);
}  // namespace kwb::reference

namespace {

using Clock = std::chrono::steady_clock;

double best_ms(const std::function<void()>& f) {
  double best = 1e300;
  for (int i = 0; i < 3; ++i) {
    auto t = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  return best;
}

struct Case {
  std::string op;
  void (*fn)(const kwb::core::ReferenceArgs&);
  std::map<std::string, int64_t> params;
  std::vector<std::pair<std::string, size_t>> inputs;  // f32 tensors
  std::pair<std::string, size_t> output;
};

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  kwb::eval::ReferenceHostConfig cfg;
  cfg.runner = fs::path(KWB_BENCH_BIN_DIR) / "kwb-runner";
  const char* bwrap = std::getenv("KWB_BWRAP");
  cfg.bwrap = bwrap && *bwrap ? bwrap : "/usr/bin/bwrap";
  cfg.workspace = argc > 1 ? argv[1] : "/tmp/kwb-bench-reference";
  kwb::eval::ReferenceHost host(cfg);
  const int64_t m = 512, rows = 4096, cols = 4096;
  std::vector<Case> cases = {
      {"gemm", &kwb::reference::gemm, {{"m", m}, {"n", m}, {"k", m}}, {{"a", m * m}, {"b", m * m}}, {"c", m * m}},
      {"softmax", &kwb::reference::softmax, {{"rows", rows}, {"cols", cols}}, {{"x", rows * cols}}, {"y", rows * cols}},
      {"row_sum", &kwb::reference::row_sum, {{"rows", rows}, {"cols", cols}}, {{"x", rows * cols}}, {"y", rows}},
  };
  std::printf("| op | workload | in process | reference process | overhead | open (build + start) |\n|---|---|---|---|---|---|\n");
  for (const auto& c : cases) {
    auto spec = kwb::spec::load_spec(fs::path(KWB_BENCH_SOURCE_DIR) / "specs" / c.op / "spec.json");
    if (!spec) return std::fprintf(stderr, "%s\n", spec.error().what().c_str()), 1;
    std::vector<std::vector<float>> inputs;
    uint32_t x = 1;
    kwb::core::ReferenceArgs args;
    args.variant = "f32";
    args.params = c.params;
    for (const auto& [name, n] : c.inputs) {
      auto& v = inputs.emplace_back(n);
      for (auto& e : v) e = float(int((x = x * 1664525u + 1013904223u) >> 9) % 2001 - 1000) / 1000.0f;
      args.inputs[name] = v.data();
    }
    std::vector<double> out(c.output.second);
    args.outputs[c.output.first] = out.data();
    double in_process = best_ms([&] { c.fn(args); });
    auto t = Clock::now();
    auto ref = host.open(*spec);
    double open_ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    if (!ref) return std::fprintf(stderr, "%s\n", ref.error().what().c_str()), 1;
    bool ok = true;
    double process = best_ms([&] { ok = ok && (*ref)->compute(args).has_value(); });
    if (!ok) return std::fprintf(stderr, "%s: the reference process failed\n", c.op.c_str()), 1;
    std::string workload;
    for (const auto& [k, v] : c.params) workload += (workload.empty() ? "" : " ") + k + "=" + std::to_string(v);
    std::printf("| %s | %s | %.1f ms | %.1f ms | %+.1f ms (%+.0f%%) | %.0f ms |\n", c.op.c_str(), workload.c_str(),
                in_process, process, process - in_process, 100 * (process - in_process) / in_process, open_ms);
  }
}
