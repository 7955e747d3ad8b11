// core/feedback.hpp as JSON (docs/verdict.md "Feedback") and back.
#include "core/feedback.hpp"

#include "core/json_fields.hpp"

namespace kwb::core {

namespace {

using namespace json_fields;

J to_json(const InstructionMix& m) {
  return {{"ld_global", m.ld_global}, {"ld_global_v2", m.ld_global_v2}, {"ld_global_v4", m.ld_global_v4},
          {"st_global", m.st_global}, {"st_global_v2", m.st_global_v2}, {"st_global_v4", m.st_global_v4},
          {"ld_shared", m.ld_shared}, {"st_shared", m.st_shared}, {"cp_async", m.cp_async},
          {"mma", m.mma},             {"wgmma", m.wgmma},             {"tensor_cores", m.tensor_cores()}};
}

J to_json(const SassMix& m) {
  return {{"instructions", m.instructions},
          {"ldg_32", m.ldg_32}, {"ldg_64", m.ldg_64}, {"ldg_128", m.ldg_128},
          {"stg_32", m.stg_32}, {"stg_64", m.stg_64}, {"stg_128", m.stg_128},
          {"lds", m.lds}, {"sts", m.sts}, {"ldsm", m.ldsm}, {"ldgsts", m.ldgsts}, {"tma", m.tma},
          {"ldl", m.ldl}, {"stl", m.stl},
          {"hmma", m.hmma}, {"hgmma", m.hgmma}, {"imma", m.imma}, {"other_mma", m.other_mma},
          {"tensor_cores", m.tensor_cores()}};
}

SassMix sass_mix_from_json(const J& m) {
  SassMix s;
  s.instructions = int(integer(m, "instructions"));
  s.ldg_32 = int(integer(m, "ldg_32"));
  s.ldg_64 = int(integer(m, "ldg_64"));
  s.ldg_128 = int(integer(m, "ldg_128"));
  s.stg_32 = int(integer(m, "stg_32"));
  s.stg_64 = int(integer(m, "stg_64"));
  s.stg_128 = int(integer(m, "stg_128"));
  s.lds = int(integer(m, "lds"));
  s.sts = int(integer(m, "sts"));
  s.ldsm = int(integer(m, "ldsm"));
  s.ldgsts = int(integer(m, "ldgsts"));
  s.tma = int(integer(m, "tma"));
  s.ldl = int(integer(m, "ldl"));
  s.stl = int(integer(m, "stl"));
  s.hmma = int(integer(m, "hmma"));
  s.hgmma = int(integer(m, "hgmma"));
  s.imma = int(integer(m, "imma"));
  s.other_mma = int(integer(m, "other_mma"));
  return s;
}

J to_json(const Occupancy& o) {
  return {{"threads", o.threads},
          {"dynamic_smem_bytes", o.dynamic_smem_bytes},
          {"blocks_per_sm", o.blocks_per_sm},
          {"warps_per_sm", o.warps_per_sm},
          {"pct", o.pct},
          {"limited_by", o.limited_by.empty() ? J(nullptr) : J(o.limited_by)},
          {"runner_blocks_per_sm", json_or_null(o.runner_blocks_per_sm)},
          {"workloads", o.workloads}};
}

J to_json(const KernelFacts& k) {
  J j = {{"kernel", k.kernel},
         {"registers", k.registers},
         {"spill_store_bytes", k.spill_store_bytes},
         {"spill_load_bytes", k.spill_load_bytes},
         {"stack_frame_bytes", k.stack_frame_bytes},
         {"static_smem_bytes", k.static_smem_bytes},
         {"barriers", k.barriers},
         {"max_threads_per_block", k.max_threads_per_block},
         {"instructions", to_json(k.instructions)},
         {"sass", k.sass ? to_json(*k.sass) : J(nullptr)},
         {"occupancy", J::array()}};
  for (const auto& o : k.occupancy) j["occupancy"].push_back(to_json(o));
  j["runner"] = k.runner ? J{{"registers", k.runner->registers},
                             {"local_bytes", k.runner->local_bytes},
                             {"static_smem_bytes", k.runner->static_smem_bytes},
                             {"max_threads_per_block", k.runner->max_threads_per_block}}
                         : J(nullptr);
  return j;
}

}  // namespace

J to_json(const ConfigFacts& f) {
  J j = {{"config", f.config}, {"arch", f.arch}, {"source", f.source}, {"ptx_sha256", f.ptx_sha256},
         {"cubin_sha256", f.cubin_sha256}, {"sass_sha256", f.sass_sha256.empty() ? J(nullptr) : J(f.sass_sha256)},
         {"sass_tool", f.sass_tool.empty() ? J(nullptr) : J(f.sass_tool)},
         {"sass_note", f.sass_note.empty() ? J(nullptr) : J(f.sass_note)}, {"kernels", J::array()}};
  for (const auto& k : f.kernels) j["kernels"].push_back(to_json(k));
  return j;
}

J to_json(const ProfileOutcome& p) {
  return {{"status", p.status}, {"reason", p.reason}, {"ms", p.ms},
          {"report_sha256", p.report_sha256.empty() ? J(nullptr) : J(p.report_sha256)}};
}

ProfileOutcome profile_outcome_from_json(const J& j) {
  if (!j.is_object()) return {};
  return {text(j, "status"), text(j, "reason"), number(j, "ms"), text(j, "report_sha256"), {}};
}

J to_json(const SanitizerOutcome& s) {
  J runs = J::array();
  for (const auto& r : s.runs) runs.push_back(to_json(r));
  return {{"status", s.status}, {"reason", s.reason}, {"workload", s.workload}, {"config", s.config},
          {"ms", s.ms}, {"runs", runs}};
}

SanitizerOutcome sanitizer_outcome_from_json(const J& j) {
  SanitizerOutcome s;
  if (!j.is_object()) return s;
  s.status = text(j, "status");
  s.reason = text(j, "reason");
  s.workload = text(j, "workload");
  s.config = text(j, "config");
  s.ms = number(j, "ms");
  const J& runs = member(j, "runs");
  if (runs.is_array())
    for (const auto& r : runs) s.runs.push_back(sanitizer_run_from_json(r));
  return s;
}

J to_json(const WorkloadFeedback& f) {
  J roofs = J::array();
  for (const auto& r : f.roofline)
    roofs.push_back({{"peaks", r.peaks},
                     {"bytes_per_s", r.bytes_per_s},
                     {"flops_per_s", json_or_null(r.flops_per_s)},
                     {"ridge_intensity", json_or_null(r.ridge_intensity)},
                     {"bound", r.bound},
                     {"pct_of_roof", r.pct_of_roof},
                     {"headroom_pct", r.headroom_pct}});
  J profile = J::array();
  for (const auto& p : f.profile) profile.push_back(to_json(p));
  return {{"config", f.config}, {"intensity", json_or_null(f.intensity)}, {"roofline", roofs}, {"profile", profile}};
}

ConfigFacts config_facts_from_json(const J& j) {
  ConfigFacts f;
  if (!j.is_object()) return f;
  f.config = text(j, "config");
  f.arch = text(j, "arch");
  f.source = text(j, "source");
  f.ptx_sha256 = text(j, "ptx_sha256");
  f.cubin_sha256 = text(j, "cubin_sha256");
  f.sass_sha256 = text(j, "sass_sha256");
  f.sass_tool = text(j, "sass_tool");
  f.sass_note = text(j, "sass_note");
  const J& kernels = member(j, "kernels");
  if (!kernels.is_array()) return f;
  for (const auto& kj : kernels) {
    if (!kj.is_object()) continue;
    KernelFacts k;
    k.kernel = text(kj, "kernel");
    k.registers = int(integer(kj, "registers"));
    k.spill_store_bytes = integer(kj, "spill_store_bytes");
    k.spill_load_bytes = integer(kj, "spill_load_bytes");
    k.stack_frame_bytes = integer(kj, "stack_frame_bytes");
    k.static_smem_bytes = integer(kj, "static_smem_bytes");
    k.barriers = int(integer(kj, "barriers"));
    k.max_threads_per_block = int(integer(kj, "max_threads_per_block"));
    const J& m = member(kj, "instructions");
    if (m.is_object()) {
      auto& i = k.instructions;
      i.ld_global = int(integer(m, "ld_global"));
      i.ld_global_v2 = int(integer(m, "ld_global_v2"));
      i.ld_global_v4 = int(integer(m, "ld_global_v4"));
      i.st_global = int(integer(m, "st_global"));
      i.st_global_v2 = int(integer(m, "st_global_v2"));
      i.st_global_v4 = int(integer(m, "st_global_v4"));
      i.ld_shared = int(integer(m, "ld_shared"));
      i.st_shared = int(integer(m, "st_shared"));
      i.cp_async = int(integer(m, "cp_async"));
      i.mma = int(integer(m, "mma"));
      i.wgmma = int(integer(m, "wgmma"));
    }
    if (const J& sm = member(kj, "sass"); sm.is_object() && !sm.empty()) k.sass = sass_mix_from_json(sm);
    const J& occ = member(kj, "occupancy");
    if (occ.is_array())
      for (const auto& oj : occ) {
        if (!oj.is_object()) continue;
        Occupancy o;
        o.threads = integer(oj, "threads");
        o.dynamic_smem_bytes = integer(oj, "dynamic_smem_bytes");
        o.blocks_per_sm = int(integer(oj, "blocks_per_sm"));
        o.warps_per_sm = int(integer(oj, "warps_per_sm"));
        o.pct = number(oj, "pct");
        o.limited_by = text(oj, "limited_by");
        if (auto r = opt_number(oj, "runner_blocks_per_sm")) o.runner_blocks_per_sm = int(*r);
        const J& names = member(oj, "workloads");
        if (names.is_array())
          for (const auto& n : names)
            if (n.is_string()) o.workloads.push_back(n.get<std::string>());
        k.occupancy.push_back(std::move(o));
      }
    const J& r = member(kj, "runner");
    if (r.is_object())
      k.runner = RunnerKernelAttributes{int(integer(r, "registers")), int(integer(r, "local_bytes")),
                                        int(integer(r, "static_smem_bytes")), int(integer(r, "max_threads_per_block"))};
    f.kernels.push_back(std::move(k));
  }
  return f;
}

WorkloadFeedback workload_feedback_from_json(const J& j) {
  WorkloadFeedback f;
  if (!j.is_object()) return f;
  f.config = text(j, "config");
  f.intensity = opt_number(j, "intensity");
  const J& roofs = member(j, "roofline");
  if (roofs.is_array())
    for (const auto& r : roofs) {
      if (!r.is_object()) continue;
      f.roofline.push_back(RooflinePosition{text(r, "peaks"), number(r, "bytes_per_s"), opt_number(r, "flops_per_s"),
                                            opt_number(r, "ridge_intensity"), text(r, "bound"),
                                            number(r, "pct_of_roof"), number(r, "headroom_pct")});
    }
  const J& profile = member(j, "profile");
  if (profile.is_array())
    for (const auto& p : profile) f.profile.push_back(kernel_profile_from_json(p));
  return f;
}

}  // namespace kwb::core
