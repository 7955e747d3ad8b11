#include "eval/timing_subject.hpp"

namespace kwb::eval {

TimingSubject::TimingSubject(const core::Spec& spec, const core::Variant& variant, Reference& reference,
                             SharedArena& arena, RunnerSession& runner, TimingSubjectConfig cfg)
    : m_spec(spec), m_variant(variant), m_reference(reference), m_arena(arena), m_runner(runner),
      m_cfg(std::move(cfg)) {}

TimingSubject::~TimingSubject() = default;

std::optional<CheckFailure> TimingSubject::lay_out(const core::Workload& w) {
  m_harness.reset();
  m_attached = nullptr;
  m_blocks = 0;
  m_workload = w;
  m_result = {};
  m_result.name = w.name;
  m_result.kind = "bench";
  m_result.params = w.params;
  Reference& reference = m_cfg.reference_for ? *m_cfg.reference_for(m_workload) : m_reference;
  m_harness = std::make_unique<WorkloadHarness>(m_spec, m_variant, reference, m_arena, m_runner, m_workload, m_result);
  if (auto f = m_harness->prepare()) return f;
  if (m_cfg.setup)
    if (auto f = m_cfg.setup(m_workload)) return f;
  m_uploaded = false;
  return std::nullopt;
}

std::optional<CheckFailure> TimingSubject::begin(const core::Workload& w, uint64_t input_seed, uint64_t guard_seed) {
  if (auto f = lay_out(w)) return f;
  m_harness->load_inputs(m_spec.distributions[0], input_seed);
  return m_harness->run_and_verify(guard_seed);
}

std::optional<CheckFailure> TimingSubject::begin_from(const core::Workload& w, const WorkloadHarness& from,
                                                      uint64_t guard_seed) {
  if (auto f = lay_out(w)) return f;
  m_harness->adopt_inputs(from, true);
  return m_harness->run_and_verify(guard_seed);
}

void TimingSubject::attach(const core::Workload& w, WorkloadHarness& harness) {
  m_harness.reset();
  m_workload = w;
  m_attached = &harness;
  m_uploaded = false;
  m_blocks = 0;
}

void TimingSubject::adopt(const WorkloadHarness& from) {
  if (!harness()) return;
  harness()->adopt_inputs(from, false);
  m_uploaded = false;
}

std::expected<std::vector<double>, CheckFailure> TimingSubject::block(int calls) {
  WorkloadHarness* h = harness();
  if (!h) return std::unexpected(CheckFailure{core::Status::error, "no workload begun"});
  // The k-th block of each side is in the k-th block pair (paired_timing.cpp,
  // paired_benchmark.cpp: both sides begin a workload together and time one block per pair): one
  // placement key per pair puts both on one CPU (a CPU runner with pin_while_timed,
  // cpu_placement.hpp). Consecutive pairs get different keys.
  m_runner.set_placement_key((++m_blocks * 0x9E3779B97F4A7C15ull) | 1);
  // The first block uploads what run_and_verify left (inputs, poisoned outputs, guards); later
  // blocks time on the device's copy.
  auto ns = m_runner.time(calls, m_cfg.flush_bytes, m_cfg.timeout_ms, {.upload = !m_uploaded, .download = false});
  m_uploaded = true;
  if (!ns) return std::unexpected(CheckFailure{ns.error().status, ns.error().reason});
  if (!m_cfg.device_copies) h->outputs_unverified();
  std::vector<double> out;
  for (auto v : *ns) out.push_back(double(v));
  return out;
}

std::optional<CheckFailure> TimingSubject::verify(const std::string& when) {
  WorkloadHarness* h = harness();
  if (!h) return CheckFailure{core::Status::error, "no workload begun"};
  if (m_cfg.device_copies)
    if (auto r = m_runner.command({{"op", "fetch"}}, m_cfg.timeout_ms, "fetching the outputs"); !r)
      return CheckFailure{r.error().status, r.error().reason};
  return h->verify(when);
}

}  // namespace kwb::eval
