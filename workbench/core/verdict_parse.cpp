#include "core/verdict_parse.hpp"

#include <cmath>
#include <limits>

namespace kwb::core {

namespace {

using J = nlohmann::json;

// Numbers may be written as "nan", "inf", "-inf" (JSON has none of these).
double num(const J& j, const char* key, double fallback = 0) {
  if (!j.contains(key)) return fallback;
  const J& v = j[key];
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    auto s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return fallback;
}

std::optional<double> opt_num(const J& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return num(j, key);
}

std::string str(const J& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

TimeStats time_stats(const J& t) {
  TimeStats s;
  s.median_ns = num(t, "median_ns");
  s.mean_ns = num(t, "mean_ns");
  s.min_ns = num(t, "min_ns");
  s.max_ns = num(t, "max_ns");
  s.p10_ns = num(t, "p10_ns");
  s.p90_ns = num(t, "p90_ns");
  s.stdev_pct = num(t, "stdev_pct");
  s.mean_stderr_pct = num(t, "mean_stderr_pct");
  s.samples = int(num(t, "samples"));
  s.discarded = int(num(t, "discarded"));
  s.timed_ms = num(t, "timed_ms");
  s.interleaved = t.value("interleaved", false);
  s.stop_reason = str(t, "stop_reason");
  s.clock = str(t, "clock");
  s.cold = !(t.contains("cold") && t["cold"].is_boolean()) || t["cold"].get<bool>();
  s.launch_overhead_ns = num(t, "launch_overhead_ns");
  s.sm_clock_min_mhz = unsigned(num(t, "sm_clock_min_mhz"));
  s.sm_clock_max_mhz = unsigned(num(t, "sm_clock_max_mhz"));
  return s;
}

WorkloadResult workload(const J& w) {
  WorkloadResult r;
  r.name = str(w, "name");
  r.kind = str(w, "kind");
  r.drawn = w.contains("drawn") && w["drawn"].is_boolean() && w["drawn"].get<bool>();  // absent before drawn shapes
  if (w.contains("reference") && w["reference"].is_string()) r.reference = w["reference"].get<std::string>();  // absent: cpu
  if (w.contains("params") && w["params"].is_object())
    for (const auto& [k, v] : w["params"].items())
      if (v.is_number_integer()) r.params[k] = v.get<int64_t>();
  r.correct = !(w.contains("correct") && w["correct"].is_boolean()) || w["correct"].get<bool>();
  r.checks = int(num(w, "checks"));
  r.max_abs_err = num(w, "max_abs_err");
  r.max_rel_err = num(w, "max_rel_err");
  r.mismatches = int64_t(num(w, "mismatches"));
  if (w.contains("first_mismatch") && w["first_mismatch"].is_object()) {
    const J& m = w["first_mismatch"];
    Mismatch mm{str(m, "tensor"), {}, num(m, "got"), num(m, "expected")};
    if (m.contains("index") && m["index"].is_array())
      for (const auto& i : m["index"])
        if (i.is_number_integer()) mm.index.push_back(i.get<int64_t>());
    r.first_mismatch = mm;
  }
  if (w.contains("time") && w["time"].is_object()) r.time = time_stats(w["time"]);
  if (w.contains("time_graph") && w["time_graph"].is_object()) r.time_graph = time_stats(w["time_graph"]);
  if (w.contains("roofline") && w["roofline"].is_object()) {
    const J& f = w["roofline"];
    r.roofline = RooflineResult{num(f, "bytes"),          num(f, "flops"),
                                opt_num(f, "pct_bw"),      opt_num(f, "pct_flops"),
                                opt_num(f, "pct_bw_sheet"), opt_num(f, "pct_flops_sheet")};
  }
  r.vs_incumbent = opt_num(w, "vs_incumbent");
  r.vs_baseline = opt_num(w, "vs_baseline");
  if (w.contains("comparison") && w["comparison"].is_object()) {
    const J& c = w["comparison"];
    r.comparison = Comparison{str(c, "label"),          num(c, "ratio"),        num(c, "low"),
                              num(c, "high"),           num(c, "confidence"),   int(num(c, "blocks")),
                              int(num(c, "samples")),   num(c, "candidate_ns"), num(c, "incumbent_ns"),
                              num(c, "ms"),             str(c, "stop_reason")};
  }
  if (w.contains("feedback") && w["feedback"].is_object()) r.feedback = workload_feedback_from_json(w["feedback"]);
  if (w.contains("config_times") && w["config_times"].is_array())
    for (const auto& c : w["config_times"])
      if (c.is_object())
        r.config_times.push_back({c.value("config", std::string()), c.value("median_ns", 0.0), c.value("vs_winner", 1.0),
                                  c.value("low", 1.0), c.value("high", 1.0), c.value("label", std::string())});
  return r;
}

}  // namespace

std::optional<Status> status_from_name(std::string_view name) {
  for (int i = 0; i <= int(Status::error); ++i)
    if (status_name(Status(i)) == name) return Status(i);
  return std::nullopt;
}

util::Result<Verdict> verdict_from_json(const J& j) {
  if (!j.is_object()) return util::fail("verdict", "expected a JSON object, got " + std::string(j.type_name()));
  if (str(j, "schema") != "kwb.verdict.v1")
    return util::fail("verdict.schema", "expected \"kwb.verdict.v1\", got " + (j.contains("schema") ? j["schema"].dump() : "nothing"));
  Verdict v;
  v.candidate = str(j, "candidate");
  v.op = str(j, "op");
  if (j.contains("spec_version") && j["spec_version"].is_number_integer()) v.spec_version = j["spec_version"].get<int>();
  v.variant = str(j, "variant");
  v.backend = str(j, "backend");
  auto status = status_from_name(str(j, "status"));
  if (!status) return util::fail("verdict.status", "unknown status " + (j.contains("status") ? j["status"].dump() : "(missing)"));
  v.status = *status;
  v.reason = str(j, "reason");
  v.device = str(j, "device");
  v.toolchain = str(j, "toolchain");
  if (j.contains("diagnostics") && j["diagnostics"].is_array())
    for (const auto& d : j["diagnostics"])
      v.diagnostics.push_back(Diagnostic{str(d, "file"), int(num(d, "line")), int(num(d, "col")),
                                               str(d, "severity"), str(d, "message"), str(d, "rule")});
  if (j.contains("workloads") && j["workloads"].is_array())
    for (const auto& w : j["workloads"]) v.workloads.push_back(workload(w));
  if (j.contains("compiler_facts") && j["compiler_facts"].is_array())
    for (const auto& f : j["compiler_facts"]) v.compiler_facts.push_back(config_facts_from_json(f));
  if (j.contains("profile") && j["profile"].is_object()) v.profile = profile_outcome_from_json(j["profile"]);
  if (j.contains("sanitizer") && j["sanitizer"].is_object()) v.sanitizer = sanitizer_outcome_from_json(j["sanitizer"]);
  if (j.contains("summary") && j["summary"].is_object()) {
    const J& s = j["summary"];
    v.summary.geomean_vs_incumbent = opt_num(s, "geomean_vs_incumbent");
    v.summary.geomean_vs_baseline = opt_num(s, "geomean_vs_baseline");
    if (s.contains("beats_incumbent") && s["beats_incumbent"].is_boolean()) v.summary.beats_incumbent = s["beats_incumbent"].get<bool>();
    if (s.contains("incumbent") && s["incumbent"].is_object()) {
      const J& i = s["incumbent"];
      IncumbentRef ref{str(i, "kernel"), str(i, "commit"), str(i, "source_sha256"), str(i, "device_class"),
                             i.contains("remeasured") && i["remeasured"].is_boolean() && i["remeasured"].get<bool>()};
      v.summary.incumbent = ref;
    }
    if (s.contains("decision") && s["decision"].is_object()) {
      const J& d = s["decision"];
      Decision dec;
      dec.promotable = d.contains("promotable") && d["promotable"].is_boolean() && d["promotable"].get<bool>();
      dec.reason = str(d, "reason");
      auto names = [&](const char* key, std::vector<std::string>& out) {
        if (d.contains(key) && d[key].is_array())
          for (const auto& n : d[key])
            if (n.is_string()) out.push_back(n.get<std::string>());
      };
      names("wins", dec.wins);
      names("regressions", dec.regressions);
      names("undecided", dec.undecided);
      v.summary.decision = dec;
    }
    if (s.contains("machine") && s["machine"].is_object()) {
      const J& m = s["machine"];
      v.summary.machine = MachineState{num(m, "load_avg_1m"), int(num(m, "running_max")), int(num(m, "cores")),
                                       m.contains("busy") && m["busy"].is_boolean() && m["busy"].get<bool>(),
                                       str(m, "detail"), int(num(m, "others_max")), int(num(m, "others_seen")),
                                       int(num(m, "samples"))};
    }
    if (s.contains("resources") && s["resources"].is_object()) v.summary.resources = resource_diff_from_json(s["resources"]);
    v.summary.wall_ms = num(s, "wall_ms");
    if (s.contains("stage_ms") && s["stage_ms"].is_object())
      for (const auto& [k, ms] : s["stage_ms"].items())
        if (ms.is_number()) v.summary.stage_ms[k] = ms.get<double>();
    v.summary.compile_cache = str(s, "compile_cache");
    v.summary.samples_sha256 = str(s, "samples_sha256");
    v.summary.blocks_sha256 = str(s, "blocks_sha256");
    v.summary.method = str(s, "method");
  }
  return v;
}

}  // namespace kwb::core
