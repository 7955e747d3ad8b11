#include "app/sample_plot.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace kwb::app {

std::string text_histogram(std::vector<double> values, int bins, int width, double unit_scale, const std::string& unit) {
  if (values.empty() || bins < 1) return {};
  std::sort(values.begin(), values.end());
  auto at = [&](double q) { return values[std::min(values.size() - 1, size_t(q * double(values.size() - 1)))]; };
  double lo = at(0.01), hi = at(0.99);
  if (!(hi > lo)) hi = lo + std::max(1e-9, std::abs(lo) * 1e-6);
  std::vector<size_t> count(size_t(bins), 0);
  for (double v : values) {
    int b = int((v - lo) / (hi - lo) * bins);
    count[size_t(std::clamp(b, 0, bins - 1))]++;
  }
  const size_t most = *std::max_element(count.begin(), count.end());
  std::string out;
  for (int b = 0; b < bins; ++b) {
    const double from = lo + (hi - lo) * b / bins, to = lo + (hi - lo) * (b + 1) / bins;
    const int bar = most ? int(std::lround(double(count[size_t(b)]) / double(most) * width)) : 0;
    out += fmt::format("  [{:>10.3f}, {:>10.3f}){} {:>6}  {}\n", from / unit_scale, to / unit_scale,
                       unit.empty() ? "" : " " + unit, count[size_t(b)], std::string(size_t(bar), '#'));
  }
  return out;
}

}  // namespace kwb::app
