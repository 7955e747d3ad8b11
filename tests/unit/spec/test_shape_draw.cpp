// Drawing test workloads from a spec's shapes: deterministic per seed, different across seeds,
// within the constraints and the element cap, never a published shape, edge values likely.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "spec/loader.hpp"
#include "spec/shape_draw.hpp"

namespace kwb::spec {
namespace {

const std::string k_file = "specs/demo/spec.json";

// rows x cols in, one value per row out; drawn cols must be odd.
std::string spec_text(const std::string& shapes) {
  return R"json({
  "op": "demo", "version": 1, "summary": "Test fixture.",
  "params": ["rows", "cols"],
  "tensors": [{"name": "x", "role": "in", "shape": ["rows", "cols"]},
              {"name": "y", "role": "out", "shape": ["rows"]}],
  "variants": [{"name": "f32", "entry": "kwb_demo_f32", "dtypes": {"x": "f32", "y": "f32"},
                "tolerance": {"y": {"atol": 1e-6, "rtol": 1e-4}},
                "roofline": {"bytes": "4*rows*cols + 4*rows", "flops": "rows*cols"}}],
  "distributions": [{"name": "normal", "tensors": {"x": {"kind": "normal", "mean": 0, "stddev": 1}}}],
  "workloads": {"test": [{"name": "1x1", "params": {"rows": 1, "cols": 1}},
                         {"name": "1x3", "params": {"rows": 1, "cols": 3}}],
                "bench": [{"name": "big", "params": {"rows": 64, "cols": 64}}]},
  "shapes": )json" + shapes + "\n}";
}

core::Spec load(const std::string& shapes) {
  auto s = parse_spec(spec_text(shapes), k_file);
  EXPECT_TRUE(s.has_value()) << s.error().what();
  return s.value_or(core::Spec{});
}

const char* const k_shapes =
    R"({"ranges": {"rows": "1..4096", "cols": "1..70000"}, "constraints": ["cols % 2 == 1"], "count": 4,
        "max_elements": 200000})";

std::vector<core::Workload> draw(const core::Spec& s, uint64_t seed) {
  auto w = draw_workloads(s, seed);
  EXPECT_TRUE(w.has_value()) << w.error().what();
  return w.value_or(std::vector<core::Workload>{});
}

TEST(ShapeDraw, SameSeedSameWorkloads) {
  core::Spec s = load(k_shapes);
  auto a = draw(s, 42), b = draw(s, 42);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].params, b[i].params);
  }
}

TEST(ShapeDraw, DifferentSeedsDrawDifferentShapes) {
  core::Spec s = load(k_shapes);
  std::set<std::string> first_names;
  std::set<std::vector<std::string>> sets;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    auto w = draw(s, seed);
    ASSERT_EQ(w.size(), 4u);
    std::vector<std::string> names;
    for (const auto& x : w) names.push_back(x.name);
    first_names.insert(names[0]);
    sets.insert(names);
  }
  EXPECT_EQ(sets.size(), 50u) << "every seed drew its own set of shapes";
  EXPECT_GE(first_names.size(), 40u) << "the first shape alone varies across seeds";
}

TEST(ShapeDraw, WorkloadsAreNamedMarkedAndWithinTheRules) {
  core::Spec s = load(k_shapes);
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    auto w = draw(s, seed * 7919);
    ASSERT_EQ(w.size(), 4u);
    std::set<std::map<std::string, int64_t>> seen;
    for (const auto& x : w) {
      const int64_t rows = x.params.at("rows"), cols = x.params.at("cols");
      EXPECT_TRUE(x.drawn);
      EXPECT_TRUE(x.backends.empty()) << "drawn workloads run on every backend";
      EXPECT_EQ(x.name, "drawn:rows=" + std::to_string(rows) + ",cols=" + std::to_string(cols));
      EXPECT_EQ(x.params.size(), 2u);
      EXPECT_GE(rows, 1);
      EXPECT_LE(rows, 4096);
      EXPECT_GE(cols, 1);
      EXPECT_LE(cols, 70000);
      EXPECT_EQ(cols % 2, 1) << x.name << ": the constraint holds";
      EXPECT_LE(rows * cols + rows, 200000) << x.name << ": within max_elements";
      EXPECT_FALSE(rows == 1 && (cols == 1 || cols == 3)) << x.name << " is a published test workload";
      EXPECT_TRUE(seen.insert(x.params).second) << x.name << " drawn twice";
    }
  }
}

TEST(ShapeDraw, EdgeValuesAreLikely) {
  util::Rng rng(2024);
  int lo = 0, hi = 0, near_lo = 0, primes = 0, off_128 = 0, small = 0, large = 0, mid = 0;
  const int n = 10000;
  for (int i = 0; i < n; ++i) {
    int64_t v = draw_param(rng, 1, 70000);
    ASSERT_GE(v, 1);
    ASSERT_LE(v, 70000);
    lo += v == 1;
    hi += v == 70000;
    near_lo += v >= 2 && v <= 4;
    primes += v > 1000 && is_prime(v);
    off_128 += v > 128 && (v % 128 == 1 || v % 128 == 127);
    small += v < 100;
    large += v > 10000;
    mid += v >= 100 && v <= 10000;
  }
  // The mixture's shares (shape_draw.cpp): 10 % lo, 6 % hi, 8 % just above lo, 20 % primes,
  // 20 % one off a multiple of 32..1024, the rest log-uniform and uniform. Loose bounds: each
  // kind of edge comes up often, and the values still spread over the whole range.
  EXPECT_GT(lo, n * 7 / 100);
  EXPECT_GT(hi, n * 4 / 100);
  EXPECT_GT(near_lo, n * 5 / 100);
  EXPECT_GT(primes, n * 5 / 100);
  EXPECT_GT(off_128, n * 3 / 100);
  EXPECT_GT(small, n * 20 / 100);
  EXPECT_GT(large, n * 20 / 100);
  EXPECT_GT(mid, n * 20 / 100);
}

TEST(ShapeDraw, EveryEvaluationProbesTheTopOfEveryParam) {
  // Independent picks under a cap mostly give small shapes; each of the first draws takes one
  // param from the top decade of its range, so a kernel that only handles small rows or small
  // cols is caught by every evaluation (the cap allows cols >= 7000 for rows <= 28).
  core::Spec s = load(k_shapes);
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    bool large_rows = false, large_cols = false;
    for (const auto& w : draw(s, seed)) {
      large_rows = large_rows || w.params.at("rows") >= 409;
      large_cols = large_cols || w.params.at("cols") >= 7000;
    }
    EXPECT_TRUE(large_rows && large_cols) << "seed " << seed;
  }
  util::Rng rng(5);
  int at_hi = 0;
  for (int i = 0; i < 1000; ++i) {
    int64_t v = draw_large_param(rng, 1, 70000);
    ASSERT_GE(v, 7000);
    ASSERT_LE(v, 70000);
    at_hi += v == 70000;
  }
  EXPECT_GT(at_hi, 200);
  EXPECT_EQ(draw_large_param(rng, 5, 5), 5);
}

TEST(ShapeDraw, ValuesStayInNarrowAndFixedRanges) {
  util::Rng rng(7);
  std::set<int64_t> seen;
  for (int i = 0; i < 2000; ++i) {
    int64_t v = draw_param(rng, 30, 34);
    ASSERT_GE(v, 30);
    ASSERT_LE(v, 34);
    seen.insert(v);
    ASSERT_EQ(draw_param(rng, 5, 5), 5);
  }
  EXPECT_EQ(seen.size(), 5u) << "every value of a narrow range comes up";
  util::Rng big(9);
  const int64_t top = int64_t{1} << 53;
  for (int i = 0; i < 2000; ++i) {
    int64_t v = draw_param(big, top - 1000, top);
    ASSERT_GE(v, top - 1000);
    ASSERT_LE(v, top);
  }
}

TEST(ShapeDraw, PrimesAreExact) {
  for (int64_t p : {2, 3, 5, 31, 127, 4099, 65537, 100003, 2147483647})
    EXPECT_TRUE(is_prime(p)) << p;
  // 561: a Carmichael number; 3215031751: a strong pseudoprime to the bases 2, 3, 5 and 7.
  for (int64_t c : std::initializer_list<int64_t>{0, 1, 4, 9, 561, 4097, 65535, 1000000, 3215031751})
    EXPECT_FALSE(is_prime(c)) << c;
  EXPECT_TRUE(is_prime((int64_t{1} << 61) - 1));
  EXPECT_FALSE(is_prime((int64_t{1} << 53) - 1));  // 6361 x 69431 x 20394401
}

TEST(ShapeDraw, SmallSpacesDrawFewerRatherThanRepeat) {
  // rows fixed at 1, cols odd in 1..5: 1x1 and 1x3 are published, so only 1x5 is new.
  core::Spec s = load(R"({"ranges": {"rows": 1, "cols": "1..5"}, "constraints": ["cols % 2 == 1"]})");
  auto w = draw(s, 3);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].name, "drawn:rows=1,cols=5");
}

TEST(ShapeDraw, NoShapesMeansNoDraws) {
  auto s = parse_spec(spec_text("null"), k_file);
  ASSERT_FALSE(s.has_value()) << "shapes: null is not an object";
  core::Spec plain = load(k_shapes);
  plain.shapes.reset();
  EXPECT_TRUE(draw(plain, 1).empty());
}

TEST(ShapeDraw, ImpossibleConstraintsAreAnErrorNamingTheSpec) {
  // The loader refuses this; a spec changed after loading must still fail cleanly, not loop.
  core::Spec s = load(k_shapes);
  s.shapes->constraints = {"cols > 70000"};
  auto w = draw_workloads(s, 1);
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().where, k_file + ": shapes");
  EXPECT_NE(w.error().message.find("no shape from shapes.ranges met the constraints and max_elements (200000) in 10000 "
                                   "proposals"),
            std::string::npos)
      << w.error().message;
}

TEST(ShapeDraw, InvalidTensorShapeAtDrawTimeIsAnError) {
  core::Spec s = load(k_shapes);
  s.tensors[1].shape = {"cols-9"};
  s.shapes->constraints = {"cols < 9"};
  auto w = draw_workloads(s, 1);
  ASSERT_FALSE(w.has_value());
  EXPECT_NE(w.error().message.find("tensor 'y': dimension 0 \"cols-9\" is"), std::string::npos) << w.error().message;
}

TEST(ShapeDraw, ConditionsInTheSampler) {
  core::Spec s = load(R"({"ranges": {"rows": "1..100", "cols": "1..100"},
                          "constraints": ["rows <= cols", "cols % 4 != 0", "min(rows, cols) >= 2"]})");
  auto sampler = ShapeSampler::make(s);
  ASSERT_TRUE(sampler.has_value()) << sampler.error().what();
  EXPECT_TRUE(sampler->accepts({{"rows", 2}, {"cols", 3}}).value());
  EXPECT_FALSE(sampler->accepts({{"rows", 5}, {"cols", 3}}).value());   // rows > cols
  EXPECT_FALSE(sampler->accepts({{"rows", 2}, {"cols", 8}}).value());   // multiple of 4
  EXPECT_FALSE(sampler->accepts({{"rows", 1}, {"cols", 3}}).value());   // min < 2
  EXPECT_FALSE(sampler->accepts({{"rows", 99}, {"cols", 100001}}).value());  // over the default cap
}

}  // namespace
}  // namespace kwb::spec
