#include "app/library_report_measure.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "app/baseline_judge.hpp"
#include "core/backend.hpp"
#include "library/device_class.hpp"
#include "library/referee.hpp"
#include "library/scorecard_store.hpp"
#include "library/snapshot.hpp"
#include "util/hash.hpp"

namespace kwb::app {

namespace {

core::Candidate kernel_candidate(library::Repository& repo, const std::string& commit, const std::string& path,
                                 const std::string& op, const std::string& variant, const std::string& backend,
                                 const std::string& source) {
  return {"library:" + path, op, variant, backend, source, std::filesystem::path(path).filename().string(),
          library::kernel_flags(repo, path, commit), "scorecard of " + path + " at " + commit.substr(0, 12)};
}

// The library's other kernels of the same op, variant and backend (their metadata says so).
std::vector<std::pair<std::string, std::string>> rival_kernels(const std::map<std::string, std::string>& files,
                                                               const library::DispatchEntry& e) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string folder = e.op + "/" + e.backend + "/";
  for (const auto& [path, text] : files) {
    if (!path.starts_with(folder) || path == e.kernel || path.find('/', folder.size()) != std::string::npos) continue;
    const auto ext = std::filesystem::path(path).extension().string();
    if (ext != ".cpp" && ext != ".cu") continue;
    auto meta_path = std::filesystem::path(path).replace_extension(".json").string();
    auto meta = files.find(meta_path);
    if (meta == files.end()) continue;
    auto m = nlohmann::json::parse(meta->second, nullptr, false);
    if (m.is_discarded() || m.value("variant", "") != e.variant || m.value("backend", e.backend) != e.backend) continue;
    out.emplace_back(path, text);
  }
  return out;
}

// The bench workloads this scope times for a spec and backend.
std::vector<std::string> bench_names(const core::Spec& spec, const std::string& backend, const ReportScope& scope) {
  std::vector<std::string> out;
  for (const auto& w : spec.bench_workloads)
    if (w.runs_on(backend) && (scope.bench.empty() || std::ranges::find(scope.bench, w.name) != scope.bench.end()))
      out.push_back(w.name);
  return out;
}

library::ScoreRow base_row(const library::DispatchEntry& e, const std::string& device_class, const std::string& sha,
                           const std::string& workload) {
  library::ScoreRow r;
  r.op = e.op;
  r.variant = e.variant;
  r.backend = e.backend;
  r.device_class = device_class;
  r.workload = workload;
  r.kernel = e.kernel;
  r.source_sha256 = sha;
  if (!e.region.whole()) r.region = e.region.text();
  return r;
}

}  // namespace

util::Result<MeasuredRows> measure_scorecard(const spec::Catalog& catalog, library::Repository& repo,
                                             const exec::EvaluationFactory& factory, const CudaBackend& cuda,
                                             const ReportScope& scope, const ReportProgress& progress) {
  auto head = library::read_head(repo);
  if (!head) return std::unexpected(head.error());
  auto files = repo.files(head->commit);
  if (!files) return std::unexpected(files.error());
  const std::string cpu_class = library::host_cpu_class();
  const std::string gpu_class =
      cuda.device.present ? fmt::format("cuda-sm_{}{}", cuda.device.cc_major, cuda.device.cc_minor) : "";
  MeasuredRows out;
  out.library_commit = head->commit;
  std::set<std::string> devices;
  // One incumbent per op, variant and backend: the one this machine's class dispatches to (without
  // a GPU, every CUDA entry as it stands, each row no_device).
  std::set<std::string> done;
  BaselineJudge baselines(catalog);
  for (const auto& e : head->dispatch.entries) {
    if ((!scope.op.empty() && e.op != scope.op) || (!scope.backend.empty() && e.backend != scope.backend)) continue;
    const core::Spec* spec = catalog.find(e.op);
    if (!spec) continue;  // a library op without a spec here: nothing to evaluate it against
    const bool gpu = core::on_gpu(e.backend);
    const std::string cls = gpu ? (gpu_class.empty() ? e.device_class : gpu_class) : cpu_class;
    const auto* inc = gpu && gpu_class.empty() ? &e : head->dispatch.incumbent(e.op, e.variant, e.backend, cls);
    // Where the incumbents hold shape regions (docs/library.md "Shape regions"), each serves the
    // bench workloads whose params its region holds, and its rows name the region.
    const bool regional = !(gpu && gpu_class.empty()) && head->dispatch.regional(e.op, e.variant, e.backend, cls);
    std::vector<std::string> bench;
    if (regional) {
      for (const auto& name : bench_names(*spec, e.backend, scope))
        for (const auto& w : spec->bench_workloads)
          if (w.name == name && head->dispatch.incumbent(e.op, e.variant, e.backend, cls, w.params) == &e)
            bench.push_back(name);
    } else {
      if (!inc || inc != &e) continue;
      bench = bench_names(*spec, e.backend, scope);
    }
    const std::string slot = e.op + "/" + e.variant + "/" + e.backend + "/" + cls + "/" + e.region.text();
    if (bench.empty() || !done.insert(slot).second) continue;
    const std::string& source = files->at(e.kernel);
    const std::string sha = util::sha256_hex(source);
    if (gpu && gpu_class.empty()) {
      for (const auto& w : bench) {
        auto r = base_row(e, cls, sha, w);
        r.status = "no_device";
        r.reason = cuda.device.reason.empty() ? "no CUDA device on this machine" : cuda.device.reason;
        out.rows.push_back(std::move(r));
      }
      continue;
    }
    store::CandidateRecord like;
    like.op = e.op;
    like.backend = e.backend;
    like.bench = bench;
    if (progress) progress(e.kernel + " (" + cls + "): timing the incumbent");
    auto v = measure_library_kernel(factory, like, kernel_candidate(repo, head->commit, e.kernel, e.op, e.variant,
                                                                     e.backend, source));
    const std::string at = library::utc_stamp(std::chrono::system_clock::now());
    if (v.status != core::Status::accepted) {
      for (const auto& w : bench) {
        auto r = base_row(e, cls, sha, w);
        r.status = v.status == core::Status::no_device ? "no_device" : "failed";
        r.reason = std::string(core::status_name(v.status)) + ": " + v.reason;
        r.device = v.device;
        r.measured_at = at;
        out.rows.push_back(std::move(r));
      }
      continue;
    }
    devices.insert(v.device);
    if (gpu)
      baselines.judge(v, [&](const core::Candidate& k, const std::vector<std::string>& only) {
        store::CandidateRecord b;
        b.op = k.op;
        b.backend = k.backend;
        b.bench = only;
        if (progress) progress(e.op + "/" + e.variant + ": timing the baseline " + k.id);
        return measure_library_kernel(factory, b, k);
      });
    std::string baseline_name;
    for (const auto& b : spec->baselines)
      if (std::ranges::find(b.variants, e.variant) != b.variants.end()) baseline_name = b.name;
    // The other library kernels, each timed on the same bench workloads.
    std::vector<std::pair<std::string, core::Verdict>> rivals;
    if (scope.rivals)
      for (const auto& [path, text] : rival_kernels(*files, e)) {
        if (progress) progress(path + ": timing a rival");
        rivals.emplace_back(path, measure_library_kernel(factory, like, kernel_candidate(repo, head->commit, path, e.op,
                                                                                         e.variant, e.backend, text)));
      }
    for (const auto& w : v.workloads) {
      if (w.kind != "bench" || !w.time) continue;
      auto r = base_row(e, cls, sha, w.name);
      r.incumbent_ns = w.time->median_ns;
      r.stderr_pct = w.time->mean_stderr_pct;
      r.samples = w.time->samples;
      r.device = v.device;
      r.measured_at = at;
      if (w.roofline) {
        r.pct_bw = w.roofline->pct_bw;
        r.pct_flops = w.roofline->pct_flops;
        r.pct_bw_sheet = w.roofline->pct_bw_sheet;
        r.pct_flops_sheet = w.roofline->pct_flops_sheet;
      }
      if (w.feedback)
        for (const auto& pos : w.feedback->roofline) {
          // Without a compute roof (the CPU's calibration measures bandwidth only) the binding
          // roof is not known: pct_bw says the memory side.
          if (!pos.flops_per_s) continue;
          if (pos.peaks == "calibrated") {
            r.pct_roof = pos.pct_of_roof;
            r.bound = pos.bound;
          } else if (pos.peaks == "data_sheet") {
            r.pct_roof_sheet = pos.pct_of_roof;
          }
        }
      if (!baseline_name.empty())
        r.rivals.push_back({baseline_name, "baseline",
                            w.vs_baseline ? std::optional<double>(*w.vs_baseline * w.time->median_ns) : std::nullopt,
                            w.vs_baseline ? "measured" : "not_timed"});
      for (const auto& [path, rv] : rivals) {
        library::Rival rival{path, "library", std::nullopt, std::string(core::status_name(rv.status))};
        if (rv.status == core::Status::accepted) {
          rival.status = "not_timed";
          for (const auto& rw : rv.workloads)
            if (rw.kind == "bench" && rw.name == w.name && rw.time) {
              rival.ns = rw.time->median_ns;
              rival.status = "measured";
            }
        }
        r.rivals.push_back(std::move(rival));
      }
      out.rows.push_back(std::move(r));
    }
  }
  out.devices.assign(devices.begin(), devices.end());
  return out;
}

}  // namespace kwb::app
