// The text histogram kwb diff draws from a candidate's samples (app/sample_plot.hpp).
#include <gtest/gtest.h>

#include <sstream>

#include "app/sample_plot.hpp"

namespace kwb::app {
namespace {

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(TextHistogram, EveryValueIsCountedOnceAndTheFullestBinHasTheLongestBar) {
  std::vector<double> v;
  for (int i = 0; i < 90; ++i) v.push_back(100);  // a tight mode
  for (int i = 0; i < 10; ++i) v.push_back(200);  // a slow tail
  auto rows = lines(text_histogram(v, 4, 20));
  ASSERT_EQ(rows.size(), 4u);
  size_t total = 0, longest = 0, longest_at = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    std::istringstream in(rows[i].substr(rows[i].find(')') + 1));
    size_t n = 0;
    in >> n;
    total += n;
    size_t bar = size_t(std::count(rows[i].begin(), rows[i].end(), '#'));
    if (bar > longest) longest = bar, longest_at = i;
  }
  EXPECT_EQ(total, 100u);
  EXPECT_EQ(longest, 20u);
  EXPECT_EQ(longest_at, 0u) << "the mode is the lowest bin";
  EXPECT_EQ(text_histogram({}, 4), "");
  EXPECT_EQ(lines(text_histogram({5, 5, 5}, 3)).size(), 3u) << "a single value still draws";
}

}  // namespace
}  // namespace kwb::app
