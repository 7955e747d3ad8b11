// Choosing among a CUDA candidate's tunable configs (config_choice.hpp): round-robin blocks on
// one input set, the order of the configs drawn each round, until every config is told apart from
// the fastest or the round budget is spent.
#include <algorithm>
#include <chrono>

#include "eval/cuda_evaluation.hpp"
#include "eval/stats.hpp"
#include "util/random.hpp"

namespace kwb::eval {

namespace {

constexpr int k_min_rounds = 9;    // the sign test's interval needs 9 rounds at 99 %
constexpr int k_max_rounds = 40;
constexpr double k_block_ms = 5;   // each config's block

}  // namespace

std::optional<ConfigChoice> CudaEvaluation::choose_config_for(const core::Workload& w, WorkloadHarness& h) {
  using clock = std::chrono::steady_clock;
  const size_t n = m_configs.size();
  util::Rng order(m_seeds.next());
  std::vector<std::vector<double>> rounds;
  std::vector<int> calls(n, 2);
  const auto start = clock::now();
  bool uploaded = false;
  m_arena->arm_guards(m_seeds.next());
  for (int r = 0; r < k_max_rounds; ++r) {
    std::vector<size_t> turn(n);
    for (size_t i = 0; i < n; ++i) turn[i] = i;
    for (size_t i = n; i > 1; --i) std::swap(turn[i - 1], turn[order.next() % i]);
    std::vector<double> medians(n, 0);
    for (size_t c : turn) {
      if (!use_config(c) || !send_dims(c, w)) return std::nullopt;
      const auto t0 = clock::now();
      auto ns = m_runner->time(calls[c], m_device.l2_bytes * 2, m_opt.run_timeout_ms, {.upload = !uploaded, .download = false});
      if (!ns) {
        fail_check({ns.error().status, ns.error().reason + " [" + m_configs[c].label() + "]"});
        return std::nullopt;
      }
      uploaded = true;
      std::vector<double> v(ns->begin(), ns->end());
      medians[c] = median_of(v);
      const double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
      calls[c] = std::clamp(int(k_block_ms / std::max(1e-3, ms / calls[c])), 1, 64);
    }
    rounds.push_back(medians);
    if (int(rounds.size()) < k_min_rounds) continue;
    auto choice = choose_config(rounds);
    const bool told_apart = std::all_of(choice.rows.begin(), choice.rows.end(),
                                        [](const ConfigRow& row) { return row.label != core::ConfigLabel::tie; });
    const double spent_ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
    if (told_apart || spent_ms >= m_opt.time_budget_ms) return choice;
  }
  h.outputs_unverified();
  return choose_config(rounds);
}

}  // namespace kwb::eval
