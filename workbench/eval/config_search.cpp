// The search over a large tunable space (eval/config_search.hpp, docs/tuning.md "The search").
#include "eval/config_search.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "eval/sequential_interval.hpp"
#include "eval/stats.hpp"
#include "util/random.hpp"

namespace kwb::eval {

namespace {

constexpr size_t k_parents = 4;          // the best tried configs that mutate
constexpr size_t k_mutants_per_pick = 24;  // mutants drawn per config proposed, screened by the prior
constexpr double k_crossover = 0.3;

class Search {
 public:
  Search(const SearchSpace& space, const std::vector<double>& prior, const SearchOptions& opt, const SearchHooks& hooks)
      : m_space(space), m_prior(prior), m_opt(opt), m_hooks(hooks), m_rng(opt.seed), m_tried(space.points.size(), 0) {
    for (size_t c = 0; c < space.points.size(); ++c) m_index.emplace(key(space.points[c]), c);
    m_order.resize(space.points.size());
    std::iota(m_order.begin(), m_order.end(), size_t(0));
    shuffle(m_order);  // without a prior: a random order; with one: ties broken at random
    if (m_prior.size() == space.points.size())
      std::stable_sort(m_order.begin(), m_order.end(), [&](size_t a, size_t b) { return m_prior[a] < m_prior[b]; });
    else
      m_prior.clear();
  }

  SearchResult run() {
    const size_t n = m_space.points.size();
    const size_t budget = std::min(n, m_opt.budget ? m_opt.budget : default_search_budget(n));
    m_initial = std::max(m_opt.batch, budget / 8);
    while (m_out.tried.size() < budget) {
      auto batch = propose(std::min(std::max<size_t>(1, m_opt.batch), budget - m_out.tried.size()));
      if (batch.empty()) {
        m_out.stop = fmt::format("every config of the space was tried ({})", n);
        break;
      }
      for (size_t c : batch) m_tried[c] = 1;
      std::vector<std::string> why = m_hooks.prepare ? m_hooks.prepare(batch) : std::vector<std::string>{};
      for (size_t i = 0; i < batch.size(); ++i) {
        if (i < why.size() && !why[i].empty()) {
          m_out.tried.push_back({batch[i], TriedOutcome::failed, 0, 0, why[i]});
          continue;
        }
        if (!evaluate(batch[i])) {
          m_out.ok = false;
          m_out.stop = fmt::format("timing config {} failed", batch[i]);
          return m_out;
        }
      }
      if (converged(budget)) break;
      if (epoch_stalled(budget)) m_epoch = m_out.tried.size();  // a restart elsewhere in the space
    }
    if (m_out.stop.empty()) m_out.stop = fmt::format("the budget of {} evaluations was spent", budget);
    std::vector<const TriedConfig*> timed;
    for (const auto& t : m_out.tried)
      if (t.outcome == TriedOutcome::timed) timed.push_back(&t);
    std::sort(timed.begin(), timed.end(), [](auto* a, auto* b) { return a->estimate_ns < b->estimate_ns; });
    for (size_t i = 0; i < timed.size() && i < std::max<size_t>(1, m_opt.finalists); ++i)
      m_out.finalists.push_back(timed[i]->config);
    if (m_best && std::find(m_out.finalists.begin(), m_out.finalists.end(), *m_best) == m_out.finalists.end())
      m_out.finalists.push_back(*m_best);
    std::sort(m_out.finalists.begin(), m_out.finalists.end());
    if (m_best) m_out.best = *m_best;
    return m_out;
  }

 private:
  uint64_t key(const std::vector<uint16_t>& p) const {
    uint64_t k = 0;
    for (size_t d = 0; d < p.size(); ++d) k = k * (m_space.values[d].size() + 1) + p[d];
    return k;
  }
  void shuffle(std::vector<size_t>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[m_rng.next() % i]);
  }
  std::optional<size_t> lookup(const std::vector<uint16_t>& p) const {
    auto it = m_index.find(key(p));
    return it == m_index.end() ? std::nullopt : std::optional<size_t>(it->second);
  }

  // The next `n` untried configs: the prior's best and random ones first, then mutants of the
  // best tried configs screened by the prior, topped up in the prior's order.
  std::vector<size_t> propose(size_t n) {
    std::vector<size_t> out;
    auto take = [&](size_t c) {
      if (!m_tried[c] && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    };
    auto parents = ranked(m_epoch);
    if (parents.empty() || m_out.tried.size() < m_epoch + m_initial) {
      // An epoch's first generation: three quarters by the prior, the rest at random (after a
      // restart, a quarter by the prior).
      const size_t by_prior = m_prior.empty() ? 0 : m_epoch == 0 ? (n * 3 + 3) / 4 : (n + 3) / 4;
      for (size_t i = 0; i < m_order.size() && out.size() < by_prior; ++i) take(m_order[i]);
      for (size_t tries = 0; out.size() < n && tries < 64 * n; ++tries) take(far_from_tried(out));
    } else {
      parents.resize(std::min(parents.size(), k_parents));
      std::vector<size_t> mutants;
      for (size_t i = 0; i < k_mutants_per_pick * n; ++i)
        if (auto m = mutant(parents); m && !m_tried[*m] && std::find(mutants.begin(), mutants.end(), *m) == mutants.end())
          mutants.push_back(*m);
      if (!m_prior.empty())
        std::stable_sort(mutants.begin(), mutants.end(), [&](size_t a, size_t b) { return m_prior[a] < m_prior[b]; });
      // One pick at random among the mutants, so that a wrong prior cannot trap the search.
      if (!mutants.empty() && n > 1 && !m_prior.empty()) take(mutants[m_rng.next() % mutants.size()]);
      for (size_t i = 0; i < mutants.size() && out.size() < n; ++i) take(mutants[i]);
    }
    for (size_t i = 0; i < m_order.size() && out.size() < n; ++i) take(m_order[i]);
    return out;
  }

  // Of a few random configs, the one farthest (in coordinate steps) from every config tried or
  // proposed: a space-filling pick, so that a restart lands away from the basins seen.
  size_t far_from_tried(const std::vector<size_t>& proposed) {
    size_t pick = m_rng.next() % m_tried.size();
    int pick_distance = -1;
    for (int draw = 0; draw < 8; ++draw) {
      const size_t c = m_rng.next() % m_tried.size();
      if (m_tried[c]) continue;
      int nearest = 1 << 30;
      auto distance_to = [&](size_t other) {
        int dist = 0;
        for (size_t d = 0; d < m_space.values.size(); ++d)
          dist += std::abs(int(m_space.points[c][d]) - int(m_space.points[other][d]));
        nearest = std::min(nearest, dist);
      };
      for (const auto& t : m_out.tried) distance_to(t.config);
      for (size_t other : proposed) distance_to(other);
      if (nearest > pick_distance) {
        pick = c;
        pick_distance = nearest;
      }
    }
    return pick;
  }

  // The configs tried since `from` with an estimate, fastest first.
  std::vector<size_t> ranked(size_t from) const {
    std::vector<const TriedConfig*> v;
    for (size_t i = from; i < m_out.tried.size(); ++i)
      if (m_out.tried[i].outcome != TriedOutcome::failed) v.push_back(&m_out.tried[i]);
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->estimate_ns < b->estimate_ns; });
    std::vector<size_t> out;
    for (auto* t : v) out.push_back(t->config);
    return out;
  }

  std::optional<size_t> mutant(const std::vector<size_t>& parents) {
    const double u = m_rng.uniform01();
    auto point = m_space.points[parents[size_t(u * u * double(parents.size()))]];  // biased to the best
    if (parents.size() > 1 && m_rng.uniform01() < k_crossover) {
      const auto& other = m_space.points[parents[m_rng.next() % parents.size()]];
      for (size_t d = 0; d < point.size(); ++d)
        if (m_rng.next() & 1) point[d] = other[d];
    }
    const size_t moves = m_rng.uniform01() < 0.3 ? 2 : 1;
    for (size_t m = 0; m < moves && !point.empty(); ++m) {
      const size_t d = m_rng.next() % point.size();
      const int size = int(m_space.values[d].size());
      const double r = m_rng.uniform01();
      int step = r < 0.8 ? 1 : 2;
      int to = (m_rng.next() & 1) ? int(point[d]) + step : int(point[d]) - step;
      if (r > 0.95) to = int(m_rng.next() % uint64_t(size));
      point[d] = uint16_t(std::clamp(to, 0, size - 1));
    }
    return lookup(point);
  }

  // Races `c` against the best so far (config_search.hpp); false when a block hook gave up.
  bool evaluate(size_t c) {
    TriedConfig t{c, TriedOutcome::timed, 0, 0, {}};
    if (!m_best) {
      SequentialInterval first(m_opt.abort_confidence);
      std::vector<double> v;
      for (size_t i = 0; i < first.first_look(); ++i) {
        auto ns = m_hooks.block(c);
        if (!ns) return false;
        v.push_back(*ns);
      }
      t.estimate_ns = median_of(v);
      t.blocks = v.size();
      m_out.tried.push_back(t);
      set_best(c, t.estimate_ns);
      return true;
    }
    SequentialInterval seq(m_opt.abort_confidence);
    std::vector<double> ratios;
    for (size_t i = 0; i < std::max(m_opt.max_blocks, seq.first_look()); ++i) {
      const bool mine_first = i % 2 == 0;  // alternating, so drift within a pair cancels
      auto a = m_hooks.block(mine_first ? c : *m_best);
      if (!a) return false;
      auto b = m_hooks.block(mine_first ? *m_best : c);
      if (!b) return false;
      t.blocks += 2;
      const double mine = mine_first ? *a : *b, best = mine_first ? *b : *a;
      if (best > 0) ratios.push_back(mine / best);
      if (!seq.is_look(ratios.size())) continue;
      auto reading = seq.read(ratios);
      if (reading.valid && reading.interval.low > 1.0) {
        t.outcome = TriedOutcome::slower;
        break;
      }
      if (reading.valid && reading.interval.high < 1.0) break;  // clearly faster
    }
    const double ratio = ratios.empty() ? 1.0 : median_of(ratios);
    t.estimate_ns = m_best_ns * ratio;
    m_out.tried.push_back(t);
    if (t.outcome == TriedOutcome::timed && ratio < 1.0) set_best(c, t.estimate_ns);
    return true;
  }

  void set_best(size_t c, double ns) {
    m_best = c;
    m_best_ns = ns;
    m_best_since = m_out.tried.size();
  }

  // The epoch's best has held for a tenth of the budget (two batches at least) and every
  // neighbour of it was tried: its basin is explored.
  bool epoch_stalled(size_t budget) const {
    size_t best = m_out.tried.size(), since = m_epoch;
    for (size_t i = m_epoch; i < m_out.tried.size(); ++i)
      if (m_out.tried[i].outcome != TriedOutcome::failed &&
          (best == m_out.tried.size() || m_out.tried[i].estimate_ns < m_out.tried[best].estimate_ns)) {
        best = i;
        since = i + 1;
      }
    if (best == m_out.tried.size() || m_out.tried.size() - since < std::max(budget / 16, 2 * m_opt.batch)) return false;
    auto p = m_space.points[m_out.tried[best].config];
    for (size_t d = 0; d < p.size(); ++d)
      for (int step : {-1, 1}) {
        auto q = p;
        const int to = int(q[d]) + step;
        if (to < 0 || to >= int(m_space.values[d].size())) continue;
        q[d] = uint16_t(to);
        if (auto c = lookup(q); c && !m_tried[*c]) return false;
      }
    return true;
  }

  // The best has held for half of the budget (restarts included).
  bool converged(size_t budget) {
    if (!m_best || m_out.tried.size() - m_best_since < std::max<size_t>(budget * 2 / 3, 1)) return false;
    m_out.stop = fmt::format("the best config held for the last {} of {} evaluations", m_out.tried.size() - m_best_since,
                             m_out.tried.size());
    return true;
  }

  const SearchSpace& m_space;
  std::vector<double> m_prior;
  const SearchOptions& m_opt;
  const SearchHooks& m_hooks;
  util::Rng m_rng;
  std::vector<char> m_tried;
  std::unordered_map<uint64_t, size_t> m_index;
  std::vector<size_t> m_order;  // the prior's order (random without one)
  std::optional<size_t> m_best;
  double m_best_ns = 0;
  size_t m_best_since = 0;
  size_t m_epoch = 0;    // where the current epoch (the search since its last restart) began in tried
  size_t m_initial = 1;  // the first generation's size: an eighth of the budget, at least a batch
  SearchResult m_out;
};

}  // namespace

const char* tried_outcome_name(TriedOutcome o) {
  switch (o) {
    case TriedOutcome::timed: return "timed";
    case TriedOutcome::slower: return "slower";
    case TriedOutcome::failed: return "failed";
  }
  return "?";
}

size_t default_search_budget(size_t space) { return std::min(space, std::max<size_t>(16, space / 5)); }

SearchSpace search_space(const std::vector<core::TuneConfig>& configs) {
  SearchSpace s;
  if (configs.empty()) return s;
  std::vector<std::string> names;
  for (const auto& [name, v] : configs.front().values) names.push_back(name);
  s.values.resize(names.size());
  for (const auto& c : configs)
    for (size_t d = 0; d < names.size(); ++d) s.values[d].push_back(c.values.at(names[d]));
  for (auto& v : s.values) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  for (const auto& c : configs) {
    std::vector<uint16_t> p;
    for (size_t d = 0; d < names.size(); ++d)
      p.push_back(uint16_t(std::lower_bound(s.values[d].begin(), s.values[d].end(), c.values.at(names[d])) -
                           s.values[d].begin()));
    s.points.push_back(std::move(p));
  }
  return s;
}

SearchResult search_configs(const SearchSpace& space, const std::vector<double>& prior, const SearchOptions& opt,
                            const SearchHooks& hooks) {
  if (space.points.empty()) return {true, {}, {}, 0, "the space is empty"};
  return Search(space, prior, opt, hooks).run();
}

std::optional<ConfigChoice> compare_finalists(const std::vector<size_t>& finalists,
                                              const std::function<std::optional<double>(size_t c)>& block,
                                              uint64_t seed, int max_rounds) {
  constexpr int k_min_rounds = 9;  // the sign test's interval needs 9 rounds at 99 % (config_choice.hpp)
  util::Rng order(seed);
  std::vector<std::vector<double>> rounds;
  const size_t n = finalists.size();
  for (int r = 0; r < std::max(max_rounds, k_min_rounds); ++r) {
    std::vector<size_t> turn(n);
    std::iota(turn.begin(), turn.end(), size_t(0));
    for (size_t i = n; i > 1; --i) std::swap(turn[i - 1], turn[order.next() % i]);
    std::vector<double> medians(n, 0);
    for (size_t i : turn) {
      auto ns = block(finalists[i]);
      if (!ns) return std::nullopt;
      medians[i] = *ns;
    }
    rounds.push_back(std::move(medians));
    if (int(rounds.size()) < k_min_rounds) continue;
    auto choice = choose_config(rounds);
    if (std::none_of(choice.rows.begin(), choice.rows.end(),
                     [](const ConfigRow& row) { return row.label == core::ConfigLabel::tie; }))
      return choice;
  }
  return choose_config(rounds);
}

}  // namespace kwb::eval
