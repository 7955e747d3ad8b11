#pragma once
// A distribution drawn as text (kwb diff: each timed workload's samples and the comparison's
// block ratios, docs/verdict.md "Samples"): equal-width bins between the 1st and 99th percentile,
// outliers counted in the edge bins, one bar per bin scaled to the fullest.
#include <string>
#include <vector>

namespace kwb::app {

// Lines "  [lo, hi)  count  ####"; `unit_scale` divides the values for display (1e3: us from
// ns); an empty string for no values.
std::string text_histogram(std::vector<double> values, int bins = 10, int width = 40, double unit_scale = 1,
                           const std::string& unit = "");

}  // namespace kwb::app
