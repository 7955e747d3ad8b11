// core/profile.hpp as JSON (docs/profiles.md) and back: a metric that was not measured is null.
#include "core/profile.hpp"

#include "core/json_fields.hpp"

namespace kwb::core {

namespace pj = json_fields;
namespace {
using namespace json_fields;
}  // namespace

J to_json(const KernelProfile& p) {
  J stalls = J::array();
  for (const auto& s : p.stalls)
    stalls.push_back({{"reason", s.reason}, {"ratio", pj::json_or_null(s.ratio)}, {"pct", pj::json_or_null(s.pct)}});
  J rules = J::array();
  for (const auto& r : p.ncu_rules)
    rules.push_back({{"section", r.section},
                     {"name", r.name},
                     {"type", r.type},
                     {"text", r.text},
                     {"estimated_speedup_pct", pj::json_or_null(r.estimated_speedup_pct)}});
  return {{"kernel", p.kernel},
          {"duration_ns", pj::json_or_null(p.duration_ns)},
          {"grid", pj::text_or_null(p.grid)},
          {"block", pj::text_or_null(p.block)},
          {"dram_sol_pct", pj::json_or_null(p.dram_sol_pct)},
          {"memory_sol_pct", pj::json_or_null(p.memory_sol_pct)},
          {"sm_sol_pct", pj::json_or_null(p.sm_sol_pct)},
          {"achieved_occupancy_pct", pj::json_or_null(p.achieved_occupancy_pct)},
          {"theoretical_occupancy_pct", pj::json_or_null(p.theoretical_occupancy_pct)},
          {"occupancy_limiter", pj::text_or_null(p.occupancy_limiter)},
          {"registers_per_thread", pj::json_or_null(p.registers_per_thread)},
          {"l1_hit_pct", pj::json_or_null(p.l1_hit_pct)},
          {"l2_hit_pct", pj::json_or_null(p.l2_hit_pct)},
          {"global_load_sectors_per_request", pj::json_or_null(p.global_load_sectors_per_request)},
          {"global_store_sectors_per_request", pj::json_or_null(p.global_store_sectors_per_request)},
          {"shared_load_bank_conflicts", pj::json_or_null(p.shared_load_bank_conflicts)},
          {"shared_store_bank_conflicts", pj::json_or_null(p.shared_store_bank_conflicts)},
          {"shared_load_wavefronts", pj::json_or_null(p.shared_load_wavefronts)},
          {"shared_store_wavefronts", pj::json_or_null(p.shared_store_wavefronts)},
          {"tensor_pipe_pct", pj::json_or_null(p.tensor_pipe_pct)},
          {"local_load_bytes", pj::json_or_null(p.local_load_bytes)},
          {"local_store_bytes", pj::json_or_null(p.local_store_bytes)},
          {"stalls", stalls},
          {"findings", p.findings},
          {"ncu_rules", rules}};
}

KernelProfile kernel_profile_from_json(const J& j) {
  KernelProfile p;
  if (!j.is_object()) return p;
  p.kernel = pj::text(j, "kernel");
  p.duration_ns = pj::opt_number(j, "duration_ns");
  p.grid = pj::text(j, "grid");
  p.block = pj::text(j, "block");
  p.dram_sol_pct = pj::opt_number(j, "dram_sol_pct");
  p.memory_sol_pct = pj::opt_number(j, "memory_sol_pct");
  p.sm_sol_pct = pj::opt_number(j, "sm_sol_pct");
  p.achieved_occupancy_pct = pj::opt_number(j, "achieved_occupancy_pct");
  p.theoretical_occupancy_pct = pj::opt_number(j, "theoretical_occupancy_pct");
  p.occupancy_limiter = pj::text(j, "occupancy_limiter");
  if (auto r = pj::opt_integer(j, "registers_per_thread")) p.registers_per_thread = int(*r);
  p.l1_hit_pct = pj::opt_number(j, "l1_hit_pct");
  p.l2_hit_pct = pj::opt_number(j, "l2_hit_pct");
  p.global_load_sectors_per_request = pj::opt_number(j, "global_load_sectors_per_request");
  p.global_store_sectors_per_request = pj::opt_number(j, "global_store_sectors_per_request");
  p.shared_load_bank_conflicts = pj::opt_integer(j, "shared_load_bank_conflicts");
  p.shared_store_bank_conflicts = pj::opt_integer(j, "shared_store_bank_conflicts");
  p.shared_load_wavefronts = pj::opt_integer(j, "shared_load_wavefronts");
  p.shared_store_wavefronts = pj::opt_integer(j, "shared_store_wavefronts");
  p.tensor_pipe_pct = pj::opt_number(j, "tensor_pipe_pct");
  p.local_load_bytes = pj::opt_integer(j, "local_load_bytes");
  p.local_store_bytes = pj::opt_integer(j, "local_store_bytes");
  if (const J& stalls = pj::member(j, "stalls"); stalls.is_array())
    for (const auto& s : stalls)
      if (s.is_object()) p.stalls.push_back({pj::text(s, "reason"), pj::opt_number(s, "ratio"), pj::opt_number(s, "pct")});
  if (const J& findings = pj::member(j, "findings"); findings.is_array())
    for (const auto& f : findings)
      if (f.is_string()) p.findings.push_back(f.get<std::string>());
  if (const J& rules = pj::member(j, "ncu_rules"); rules.is_array())
    for (const auto& r : rules)
      if (r.is_object())
        p.ncu_rules.push_back({pj::text(r, "section"), pj::text(r, "name"), pj::text(r, "type"), pj::text(r, "text"),
                               pj::opt_number(r, "estimated_speedup_pct")});
  return p;
}

J to_json(const SanitizerFinding& f) {
  return {{"tool", f.tool},
          {"severity", f.severity},
          {"kind", f.kind},
          {"file", pj::text_or_null(f.file)},
          {"line", f.line > 0 ? J(f.line) : J(nullptr)},
          {"kernel", pj::text_or_null(f.kernel)},
          {"access_size_bytes", pj::json_or_null(f.access_size_bytes)},
          {"address", pj::text_or_null(f.address)},
          {"thread", pj::text_or_null(f.thread)},
          {"block", pj::text_or_null(f.block)},
          {"other_file", pj::text_or_null(f.other_file)},
          {"other_line", f.other_line > 0 ? J(f.other_line) : J(nullptr)},
          {"hazards", pj::json_or_null(f.hazards)},
          {"message", f.message},
          {"detail", pj::text_or_null(f.detail)}};
}

SanitizerFinding sanitizer_finding_from_json(const J& j) {
  SanitizerFinding f;
  if (!j.is_object()) return f;
  f.tool = pj::text(j, "tool");
  f.severity = pj::text(j, "severity");
  f.kind = pj::text(j, "kind");
  f.file = pj::text(j, "file");
  f.line = int(pj::integer(j, "line"));
  f.kernel = pj::text(j, "kernel");
  f.access_size_bytes = pj::opt_integer(j, "access_size_bytes");
  f.address = pj::text(j, "address");
  f.thread = pj::text(j, "thread");
  f.block = pj::text(j, "block");
  f.other_file = pj::text(j, "other_file");
  f.other_line = int(pj::integer(j, "other_line"));
  f.hazards = pj::opt_integer(j, "hazards");
  f.message = pj::text(j, "message");
  f.detail = pj::text(j, "detail");
  return f;
}

J to_json(const SanitizerRun& r) {
  J findings = J::array();
  for (const auto& f : r.findings) findings.push_back(to_json(f));
  return {{"tool", r.tool},
          {"status", r.status},
          {"error_count", r.error_count},
          {"warning_count", r.warning_count},
          {"findings", findings},
          {"reason", pj::text_or_null(r.reason)}};
}

SanitizerRun sanitizer_run_from_json(const J& j) {
  SanitizerRun r;
  if (!j.is_object()) return r;
  r.tool = pj::text(j, "tool");
  r.status = pj::text(j, "status");
  r.error_count = int(pj::integer(j, "error_count"));
  r.warning_count = int(pj::integer(j, "warning_count"));
  if (const J& findings = pj::member(j, "findings"); findings.is_array())
    for (const auto& f : findings) r.findings.push_back(sanitizer_finding_from_json(f));
  r.reason = pj::text(j, "reason");
  return r;
}

}  // namespace kwb::core
