// BasicEvaluation::run_tests: the validate stage's loop over the test workloads, shared by the
// CPU and CUDA evaluations (basic_evaluation.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "eval/basic_evaluation.hpp"

namespace kwb::eval {

namespace {

size_t output_elements(const WorkloadHarness& h) {
  size_t n = 0;
  for (const auto& s : h.slots())
    if (s.role != core::Role::in) n += s.count;
  return n;
}

}  // namespace

bool BasicEvaluation::selected(const core::Workload& w, bool bench) const {
  return w.runs_on(m_verdict.backend) &&
         !(bench && !m_opt.bench.empty() && std::find(m_opt.bench.begin(), m_opt.bench.end(), w.name) == m_opt.bench.end());
}

core::WorkloadResult& BasicEvaluation::add_result(const core::Workload& w, bool bench) {
  core::WorkloadResult& res = m_verdict.workloads.emplace_back();
  res.name = w.name;
  res.kind = bench ? "bench" : "test";
  res.drawn = w.drawn;
  res.params = w.params;
  return res;
}

bool BasicEvaluation::run_tests() {
  struct Wrong {
    size_t elements;
    std::string reason;
  };
  std::vector<Wrong> wrong;
  std::vector<size_t> result_index;  // the verdict's row of each test workload
  const size_t count = size_t(std::count_if(m_test_workloads.begin(), m_test_workloads.end(),
                                            [&](const core::Workload& w) { return selected(w, false); }));
  for (size_t c = 0; c < config_count(); ++c) {
    if (!use_config(c)) return false;
    const std::string config = config_label(c);
    const std::string label = config.empty() ? "" : " [" + config + "]";
    size_t k = 0;
    for (const auto& w : m_test_workloads) {
      if (!selected(w, false)) continue;
      if (c == 0) {
        result_index.push_back(m_verdict.workloads.size());
        add_result(w, false);
      }
      core::WorkloadResult& res = m_verdict.workloads[result_index[k++]];
      if (m_progress)  // progress events: the workload, its config, its place among the test workloads
        m_progress(workload_progress(Stage::validate, w, false, config, 0, k, count));
      WorkloadHarness h(m_spec, *m_variant, *m_reference, *m_arena, *m_runner, w, res);
      configure_test_harness(h);
      h.place_at_least_alignment(true);
      if (auto f = h.prepare()) return fail_check(*f);
      if (!send_dims(c, w)) return false;
      for (const auto& dist : m_spec.distributions) {
        h.load_inputs(dist, m_seeds.next());
        if (c == 0 && !cross_check_reference(h)) return false;
        std::optional<CheckFailure> f = h.run_and_verify(m_seeds.next());
        if (!f) f = h.check_determinism(m_seeds.next());
        if (!f) continue;
        res.correct = false;
        note_failing(w, c, false);
        if (f->status != core::Status::incorrect) return fail_check({f->status, f->reason + label});
        wrong.push_back({output_elements(h), f->reason + label});
        break;
      }
    }
  }
  if (wrong.empty()) return true;
  size_t failing = 0;
  for (size_t i : result_index) failing += !m_verdict.workloads[i].correct;
  auto worst = std::max_element(wrong.begin(), wrong.end(),
                                [](const Wrong& a, const Wrong& b) { return a.elements < b.elements; });
  return fail(core::Status::incorrect,
              fmt::format("wrong on {} of {} test workloads; {}", failing, result_index.size(), worst->reason));
}

}  // namespace kwb::eval
