// The "shapes" section of a spec: parsing, validation errors (file, field, reason) and the
// load-time check that drawn shapes are possible and valid.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/loader.hpp"
#include "spec/spec_json.hpp"

namespace kwb::spec {
namespace {

using Json = nlohmann::ordered_json;
const std::string k_file = "specs/demo/spec.json";

const char* const k_base = R"json({
  "op": "demo", "version": 1, "summary": "Test fixture.",
  "params": ["rows", "cols"],
  "tensors": [{"name": "x", "role": "in", "shape": ["rows", "cols"]},
              {"name": "y", "role": "out", "shape": ["rows"]}],
  "variants": [{"name": "f32", "entry": "kwb_demo_f32", "dtypes": {"x": "f32", "y": "f32"},
                "tolerance": {"y": {"atol": 1e-6, "rtol": 1e-4}},
                "roofline": {"bytes": "4*rows*cols + 4*rows", "flops": "rows*cols"}}],
  "distributions": [{"name": "normal", "tensors": {"x": {"kind": "normal", "mean": 0, "stddev": 1}}}],
  "workloads": {"test": [{"name": "1x1", "params": {"rows": 1, "cols": 1}}],
                "bench": [{"name": "big", "params": {"rows": 64, "cols": 64}}]},
  "shapes": {"ranges": {"rows": "1..4096", "cols": "1..70000"}, "constraints": ["cols % 2 == 1"],
             "count": 5, "max_elements": 100000}
})json";

Json base() { return Json::parse(k_base); }

TEST(Shapes, SectionLoads) {
  auto s = parse_spec(k_base, k_file);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  ASSERT_TRUE(s->shapes.has_value());
  ASSERT_EQ(s->shapes->ranges.size(), 2u);
  EXPECT_EQ(s->shapes->ranges[0].param, "rows");  // spec param order, not file order
  EXPECT_EQ(s->shapes->ranges[0].lo, 1);
  EXPECT_EQ(s->shapes->ranges[0].hi, 4096);
  EXPECT_EQ(s->shapes->ranges[1].hi, 70000);
  EXPECT_EQ(s->shapes->constraints, (std::vector<std::string>{"cols % 2 == 1"}));
  EXPECT_EQ(s->shapes->count, 5);
  EXPECT_EQ(s->shapes->max_elements, 100000);
}

TEST(Shapes, DefaultsAndFixedValues) {
  Json j = base();
  j["shapes"] = {{"ranges", {{"cols", " 3 .. 900 "}, {"rows", 7}}}};
  auto s = parse_spec(j.dump(), k_file);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_EQ(s->shapes->ranges[0].lo, 7);  // an integer fixes the param
  EXPECT_EQ(s->shapes->ranges[0].hi, 7);
  EXPECT_EQ(s->shapes->ranges[1].lo, 3);
  EXPECT_EQ(s->shapes->ranges[1].hi, 900);
  EXPECT_TRUE(s->shapes->constraints.empty());
  EXPECT_EQ(s->shapes->count, 3);
  EXPECT_EQ(s->shapes->max_elements, int64_t{1} << 20);
}

TEST(Shapes, AbsentMeansNone) {
  Json j = base();
  j.erase("shapes");
  auto s = parse_spec(j.dump(), k_file);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_FALSE(s->shapes.has_value());
}

TEST(Shapes, SpecJsonRoundTrips) {
  auto s = parse_spec(k_base, k_file);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  auto j = to_json(*s);
  ASSERT_TRUE(j.contains("shapes")) << j.dump();
  EXPECT_EQ(j["shapes"]["ranges"]["cols"], "1..70000");
  EXPECT_EQ(j["shapes"]["constraints"][0], "cols % 2 == 1");
  EXPECT_EQ(j["shapes"]["count"], 5);
  EXPECT_EQ(j["shapes"]["max_elements"], 100000);
  auto again = parse_spec(j.dump(), k_file);  // `kwb specs OP` output is a loadable spec
  ASSERT_TRUE(again.has_value()) << again.error().what();
  EXPECT_EQ(again->shapes->ranges[1].hi, 70000);
  EXPECT_EQ(again->shapes->constraints, s->shapes->constraints);

  Json none = base();
  none.erase("shapes");
  EXPECT_FALSE(to_json(*parse_spec(none.dump(), k_file)).contains("shapes"));
}

struct BadCase {
  const char* name;
  std::function<void(Json&)> mutate;
  const char* path;
  const char* message;
};

Json& shapes(Json& j) { return j["shapes"]; }

const std::vector<BadCase> k_bad = {
    {"not an object", [](Json& j) { shapes(j) = "1..5"; }, "shapes", "expected object, got string"},
    {"unknown key", [](Json& j) { shapes(j)["draws"] = 3; }, "shapes.draws",
     "unknown field 'draws' (expected one of: ranges, scalars, constraints, count, max_elements)"},
    {"missing ranges", [](Json& j) { shapes(j).erase("ranges"); }, "shapes.ranges", "missing required field"},
    {"range for an unknown param", [](Json& j) { shapes(j)["ranges"]["n"] = "1..5"; }, "shapes.ranges.n",
     "unknown param 'n' (declared: rows, cols)"},
    {"param without a range", [](Json& j) { shapes(j)["ranges"].erase("cols"); }, "shapes.ranges.cols",
     "missing: every declared param needs a range (rows, cols)"},
    {"range not a range", [](Json& j) { shapes(j)["ranges"]["cols"] = "1-70000"; }, "shapes.ranges.cols",
     "expected a range \"lo..hi\" of integers or an integer, got string \"1-70000\""},
    {"range with a float", [](Json& j) { shapes(j)["ranges"]["cols"] = "1..7e4"; }, "shapes.ranges.cols",
     "expected a range \"lo..hi\""},
    {"range of the wrong type", [](Json& j) { shapes(j)["ranges"]["cols"] = Json::array({1, 5}); },
     "shapes.ranges.cols", "got array"},
    {"lo zero", [](Json& j) { shapes(j)["ranges"]["rows"] = "0..5"; }, "shapes.ranges.rows", "lo must be >= 1, got 0"},
    {"lo negative", [](Json& j) { shapes(j)["ranges"]["rows"] = "-3..5"; }, "shapes.ranges.rows",
     "lo must be >= 1, got -3"},
    {"fixed value zero", [](Json& j) { shapes(j)["ranges"]["rows"] = 0; }, "shapes.ranges.rows",
     "lo must be >= 1, got 0"},
    {"lo above hi", [](Json& j) { shapes(j)["ranges"]["rows"] = "9..5"; }, "shapes.ranges.rows",
     "lo must be <= hi, got 9..5"},
    {"hi too large", [](Json& j) { shapes(j)["ranges"]["rows"] = "1..9007199254740993"; }, "shapes.ranges.rows",
     "hi must be <= 2^53"},
    {"constraints not an array", [](Json& j) { shapes(j)["constraints"] = "cols > 1"; }, "shapes.constraints",
     "expected array"},
    {"constraint not a string", [](Json& j) { shapes(j)["constraints"][0] = 1; }, "shapes.constraints[0]",
     "expected string"},
    {"constraint without a comparison", [](Json& j) { shapes(j)["constraints"][0] = "cols % 2"; },
     "shapes.constraints[0]", "bad constraint \"cols % 2\": column 9: expected a comparison (==, !=, <, <=, >, >=)"},
    {"constraint with two comparisons", [](Json& j) { shapes(j)["constraints"][0] = "1 < cols < 9"; },
     "shapes.constraints[0]", "only one comparison per condition"},
    {"constraint with a single =", [](Json& j) { shapes(j)["constraints"][0] = "cols = 3"; },
     "shapes.constraints[0]", "expected a comparison"},
    {"constraint with an unknown name", [](Json& j) { shapes(j)["constraints"][0] = "colz > 3"; },
     "shapes.constraints[0]", "unknown name 'colz' in \"colz > 3\" (declared params: rows, cols)"},
    {"count zero", [](Json& j) { shapes(j)["count"] = 0; }, "shapes.count",
     "must be in 1..64, got 0 (leave \"shapes\" out to draw none)"},
    {"count too large", [](Json& j) { shapes(j)["count"] = 65; }, "shapes.count", "must be in 1..64, got 65"},
    {"count not an integer", [](Json& j) { shapes(j)["count"] = "3"; }, "shapes.count", "expected integer"},
    {"max_elements zero", [](Json& j) { shapes(j)["max_elements"] = 0; }, "shapes.max_elements",
     "must be >= 1, got 0"},
    {"constraints that cannot be met", [](Json& j) { shapes(j)["constraints"][0] = "cols > 70000"; }, "shapes",
     "only 0 of 1000 shapes drawn from the ranges meet the constraints and max_elements (100000); at least 10 must"},
    {"constraints met too rarely", [](Json& j) { shapes(j)["constraints"][0] = "cols == 4321"; }, "shapes",
     "shapes drawn from the ranges meet the constraints"},
    {"cap below every shape", [](Json& j) { shapes(j)["max_elements"] = 1; }, "shapes",
     "only 0 of 1000 shapes drawn from the ranges meet the constraints and max_elements (1)"},
    {"drawn shape with an invalid tensor shape",
     [](Json& j) {
       j["tensors"][1]["shape"][0] = "cols-8";
       j["workloads"]["test"][0]["params"]["cols"] = 9;
       shapes(j).erase("constraints");
     },
     "shapes",
     "drawn shape rows=1, cols=1: tensor 'y': dimension 0 \"cols-8\" is -7; dimensions must be >= 1 (narrow "
     "shapes.ranges or add a constraint that excludes it)"},
    {"drawn shape with a negative roofline",
     [](Json& j) {
       j["variants"][0]["roofline"]["flops"] = "cols - 100";
       j["workloads"]["test"][0]["params"]["cols"] = 101;
       j["workloads"]["bench"][0]["params"]["cols"] = 101;
     },
     "shapes", "variant 'f32' roofline.flops \"cols - 100\" is"},
    {"a spec without params", [](Json& j) {
       j["params"] = Json::array();
       j["tensors"][0]["shape"] = Json::array({4});
       j["tensors"][1]["shape"] = Json::array({1});
       j["variants"][0]["roofline"] = {{"bytes", "16"}, {"flops", "4"}};
       j["workloads"]["test"][0]["params"] = Json::object();
       j["workloads"]["bench"][0]["params"] = Json::object();
     },
     "shapes", "the spec declares no params: there is nothing to draw"},
};

TEST(Shapes, BadSectionsNameFileFieldAndReason) {
  for (const auto& c : k_bad) {
    SCOPED_TRACE(c.name);
    Json j = base();
    c.mutate(j);
    auto s = parse_spec(j.dump(), k_file);
    ASSERT_FALSE(s.has_value());
    EXPECT_EQ(s.error().where, k_file + ": " + c.path) << s.error().message;
    EXPECT_NE(s.error().message.find(c.message), std::string::npos) << s.error().message;
  }
}

TEST(Shapes, AConstraintCanExcludeInvalidShapes) {
  // The same tensor shape as the failing case above, with a constraint that keeps cols > 8.
  Json j = base();
  j["tensors"][1]["shape"][0] = "cols-8";
  j["workloads"]["test"][0]["params"]["cols"] = 9;
  shapes(j)["constraints"] = Json::array({"cols >= 9"});
  auto s = parse_spec(j.dump(), k_file);
  EXPECT_TRUE(s.has_value()) << s.error().what();
}

TEST(Shapes, EveryShippedSpecDrawsShapes) {
  auto catalog = Catalog::load(KWB_TEST_SOURCE_DIR "/specs");
  ASSERT_TRUE(catalog.has_value()) << catalog.error().what();
  for (const auto& op : catalog->ops()) {
    const core::Spec* s = catalog->find(op);
    ASSERT_TRUE(s->shapes.has_value()) << op << ": shapes are on by default for the starter specs";
    EXPECT_EQ(s->shapes->count, 3) << op;
    // Drawn shapes did not change any op's meaning (docs/specs.md "Shapes"); a GPU reference added
    // later did (gemm v2, docs/specs.md "GPU references"), and so did a tolerance revisited for
    // same-precision kernels (layernorm v2, issue 37). A model op shipped with its GPU reference
    // (cross_entropy) starts at 1.
    EXPECT_EQ(s->version, op == "gemm" || op == "layernorm" ? 2 : 1) << op;
  }
}

}  // namespace
}  // namespace kwb::spec
