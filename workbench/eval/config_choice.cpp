#include "eval/config_choice.hpp"

#include <algorithm>

#include "eval/sequential_interval.hpp"
#include "eval/stats.hpp"

namespace kwb::eval {

ConfigChoice choose_config(const std::vector<std::vector<double>>& block_medians, double confidence) {
  ConfigChoice out;
  const size_t configs = block_medians.empty() ? 0 : block_medians.front().size();
  if (configs == 0) return out;
  std::vector<double> median(configs);
  for (size_t c = 0; c < configs; ++c) {
    std::vector<double> col;
    for (const auto& round : block_medians) col.push_back(round[c]);
    median[c] = median_of(col);
  }
  const size_t fastest = size_t(std::min_element(median.begin(), median.end()) - median.begin());
  auto versus = [&](size_t c, size_t against) {
    std::vector<double> ratios;
    for (const auto& round : block_medians)
      if (round[against] > 0) ratios.push_back(round[c] / round[against]);
    return median_interval(ratios, confidence);
  };
  // The first config in declared order that the fastest cannot be told apart from.
  out.winner = fastest;
  for (size_t c = 0; c < fastest; ++c) {
    auto mi = versus(c, fastest);
    if (mi.low <= 1.0) {
      out.winner = c;
      break;
    }
  }
  for (size_t c = 0; c < configs; ++c) {
    ConfigRow row{c, median[c], 1, 1, 1, core::ConfigLabel::winner};
    if (c != out.winner) {
      auto mi = versus(c, out.winner);
      row.vs_winner = mi.median;
      row.low = mi.low;
      row.high = mi.high;
      row.label = mi.low > 1.0 ? core::ConfigLabel::slower : core::ConfigLabel::tie;
    }
    out.rows.push_back(row);
  }
  return out;
}

}  // namespace kwb::eval
