// Generators of the model-op fields (spec/generators.hpp): bounds written as expressions over the
// params, offsets, distinct and permutation, each resolved per workload and checked, with errors
// that name the field.
#include <gtest/gtest.h>

#include <functional>

#include "model_ops_fixture.hpp"
#include "spec/generators.hpp"
#include "spec/loader.hpp"
#include "spec/shape_draw.hpp"

namespace kwb::spec {
namespace {

using fixture::Json;
using fixture::k_file;

Json& gen(Json& j, const char* t) { return j["distributions"][0]["tensors"][t]; }

core::Spec load(const Json& j) {
  auto s = parse_spec(j.dump(), k_file);
  if (!s) throw std::runtime_error(s.error().what());
  return *s;
}

TEST(Generators, BoundsAreExpressionsEvaluatedPerWorkload) {
  const core::Spec s = load(fixture::model_ops());
  const core::Generator& labels = s.distributions[0].tensors.at("labels");
  EXPECT_EQ(labels.bounds.at("hi"), "vocab - 1");
  EXPECT_FALSE(labels.bounds.contains("lo"));
  auto r = resolve_generator(s, 0, "labels", s.test_workloads[1].params, "w");
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->lo, 0);
  EXPECT_EQ(r->hi, 39);  // vocab 40
  EXPECT_TRUE(r->bounds.empty());
  auto cu = resolve_generator(s, 0, "cu", s.test_workloads[0].params, "w");
  ASSERT_TRUE(cu) << cu.error().what();
  EXPECT_EQ(cu->end, 7);
  EXPECT_EQ(cu->min_length, 0);
  EXPECT_EQ(cu->max_length, 7);
  auto all = resolve_distribution(s, 0, s.test_workloads[0].params, "w");
  ASSERT_TRUE(all) << all.error().what();
  EXPECT_EQ(all->at("experts").hi, 8);  // min(vocab, 64) - 1 with vocab 9
  EXPECT_EQ(all->at("logits").kind, "normal");
}

struct BadCase {
  const char* name;
  std::function<void(Json&)> mutate;
  const char* path;
  const char* message;
};

const std::vector<BadCase> k_bad = {
    {"bound names an unknown param", [](Json& j) { gen(j, "labels")["hi"] = "vocabb - 1"; },
     "distributions[0].tensors.labels.hi", "unknown name 'vocabb' in \"vocabb - 1\" (declared params: rows, vocab"},
    {"bound does not parse", [](Json& j) { gen(j, "labels")["hi"] = "vocab -"; }, "distributions[0].tensors.labels.hi",
     "bad expression"},
    {"range empty for a workload", [](Json& j) { gen(j, "labels")["hi"] = "vocab - 10"; },
     "distributions[0].tensors.labels.hi",
     "the range [0, \"vocab - 10\" = -1] is empty on workloads.test[0] 'r7v9' (rows=7, vocab=9, batch=3, k=2)"},
    {"bound beyond the dtype", [](Json& j) { gen(j, "labels")["hi"] = "vocab * 1000000000"; },
     "distributions[0].tensors.labels.hi", "do not fit tensor 'labels', i32 in variant 'f32'"},
    {"offsets that cannot end at the param", [](Json& j) { gen(j, "cu")["max_length"] = 2; },
     "distributions[0].tensors.cu.end", "offsets cannot end at \"rows\" = 7 on workloads.test[0] 'r7v9'"},
    {"offsets on a 2-D tensor", [](Json& j) { gen(j, "experts") = {{"kind", "offsets"}, {"end", "rows"}}; },
     "distributions[0].tensors.experts.kind", "offsets fill a 1-D tensor"},
    {"offsets of u8", [](Json& j) { j["variants"][0]["dtypes"]["cu"] = "u8"; }, "distributions[0].tensors.cu.kind",
     "offsets are i32 or i64"},
    {"offsets on a float tensor", [](Json& j) { gen(j, "logits") = {{"kind", "offsets"}, {"end", "rows"}}; },
     "distributions[0].tensors.logits.kind", "offsets fill a 1-D tensor"},
    {"distinct with too few values", [](Json& j) { gen(j, "experts")["hi"] = 0; }, "distributions[0].tensors.experts",
     "holds 1 distinct values, fewer than the 2 elements of each row"},
    {"distinct on a float tensor",
     [](Json& j) { gen(j, "weight") = {{"kind", "distinct"}, {"lo", 0}, {"hi", "vocab"}}; },
     "distributions[0].tensors.weight.kind", "\"distinct\" generators fill integer tensors only"},
    {"permutation field", [](Json& j) { gen(j, "experts") = {{"kind", "permutation"}, {"lo", 0}}; },
     "distributions[0].tensors.experts.lo", "unknown field 'lo' (expected one of: kind, per_row)"},
    {"distinct takes no specials",
     [](Json& j) { gen(j, "experts")["specials"] = Json::array({"nan"}); }, "distributions[0].tensors.experts.specials",
     "unknown field 'specials'"},
};

TEST(Generators, BadFieldsNameFilePathAndReason) {
  for (const auto& c : k_bad) {
    SCOPED_TRACE(c.name);
    Json j = fixture::model_ops();
    c.mutate(j);
    auto s = parse_spec(j.dump(), k_file);
    ASSERT_FALSE(s.has_value());
    EXPECT_EQ(s.error().where, k_file + ": " + c.path);
    EXPECT_NE(s.error().message.find(c.message), std::string::npos) << s.error().message;
  }
}

TEST(Generators, DrawnShapesResolveToo) {
  // vocab 8..1000 in the ranges, and hi = vocab - 9: the published workloads pass (vocab 9 and 40),
  // a drawn vocab 8 does not, and the loader says so (it tries the corners of the ranges).
  Json j = fixture::model_ops();
  gen(j, "labels")["hi"] = "vocab - 9";
  auto s = parse_spec(j.dump(), k_file);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().where, k_file + ": shapes");
  EXPECT_NE(s.error().message.find("distributions[0].tensors.labels.hi: the range [0, \"vocab - 9\" = -1] is empty"),
            std::string::npos)
      << s.error().message;
}

TEST(Generators, DrawnWorkloadsResolve) {
  const core::Spec s = load(fixture::model_ops());
  auto drawn = draw_workloads(s, 42);
  ASSERT_TRUE(drawn) << drawn.error().what();
  ASSERT_FALSE(drawn->empty());
  for (const auto& w : *drawn) {
    auto r = resolve_distribution(s, 0, w.params, w.name);
    EXPECT_TRUE(r) << r.error().what();
  }
}

TEST(Generators, IntegerDtypeRanges) {
  EXPECT_EQ(integer_dtype_range(core::DType::i8), (std::pair<double, double>{-128, 127}));
  EXPECT_EQ(integer_dtype_range(core::DType::u8), (std::pair<double, double>{0, 255}));
  EXPECT_TRUE(needs_resolving(load(fixture::model_ops()).distributions[0].tensors.at("cu")));
  EXPECT_FALSE(needs_resolving(load(fixture::model_ops()).distributions[0].tensors.at("logits")));
}

}  // namespace
}  // namespace kwb::spec
