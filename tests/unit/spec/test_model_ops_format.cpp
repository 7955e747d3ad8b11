// The spec fields for model ops (docs/specs.md): scalars, fp8 and i8 dtypes, optional tensors and
// set rules, loaded from the fixture; every field checked with an error naming file and field, and
// part of the meaning digest; to_json gives them back.
#include <gtest/gtest.h>

#include <functional>

#include "model_ops_fixture.hpp"
#include "spec/digest.hpp"
#include "spec/loader.hpp"
#include "spec/prototype.hpp"
#include "spec/shape_draw.hpp"
#include "spec/spec_json.hpp"

namespace kwb::spec {
namespace {

using fixture::Json;
using fixture::k_file;

core::Spec load(const Json& j) {
  auto s = parse_spec(j.dump(), k_file);
  if (!s) throw std::runtime_error(s.error().what());
  return *s;
}

TEST(ModelOpsFormat, FixtureLoads) {
  const core::Spec s = load(fixture::model_ops());
  ASSERT_EQ(s.scalars.size(), 2u);
  EXPECT_EQ(s.scalars[0].name, "smoothing");
  EXPECT_EQ(s.scalars[0].value, std::optional<double>(0.0));
  EXPECT_FALSE(s.scalars[1].value.has_value());
  EXPECT_EQ(s.test_workloads[0].scalars, (std::map<std::string, double>{{"smoothing", 0.0}, {"scale", 1.0}}));
  EXPECT_EQ(s.test_workloads[1].scalars, (std::map<std::string, double>{{"smoothing", 0.1}, {"scale", 0.5}}));
  EXPECT_TRUE(s.tensors[2].optional);
  ASSERT_TRUE(s.tensors[7].set.has_value());
  EXPECT_EQ(s.tensors[7].set->of, "logits");
  EXPECT_EQ(s.tensors[7].set->values, "top");
  EXPECT_FALSE(s.variants[0].has("weight"));
  EXPECT_TRUE(s.variants[1].has("weight"));
  EXPECT_EQ(s.tensors_of(s.variants[0]).size(), 7u);
  EXPECT_EQ(s.tensors_of(s.variants[1]).size(), 8u);
  EXPECT_EQ(s.variants[0].dtypes.at("experts"), core::DType::i8);
  ASSERT_EQ(s.shapes->scalars.size(), 2u);
  EXPECT_EQ(s.shapes->scalars[1].scalar, "scale");
  EXPECT_EQ(s.shapes->scalars[1].hi, 8);
}

TEST(ModelOpsFormat, PrototypesLeaveOutAbsentTensorsAndPassScalarsAsDoubles) {
  const core::Spec s = load(fixture::model_ops());
  auto cpu = entry_params(s, s.variants[0], "cpu");
  EXPECT_EQ(prototype_text("kwb_ce_f32", cpu, false),
            "void kwb_ce_f32(const float* logits, const int32_t* labels, const int32_t* cu, const int8_t* experts, "
            "float* loss, float* top, int32_t* top_idx, int64_t rows, int64_t vocab, int64_t batch, int64_t k, "
            "double smoothing, double scale)");
  auto kernel = entry_params(s, s.variants[1], "cuda");
  EXPECT_EQ(prototype_text("k", kernel, true),
            "__global__ void k(const float* logits, const int64_t* labels, const float* weight, const int64_t* cu, "
            "const int32_t* experts, float* loss, float* top, int64_t* top_idx, long long rows, long long vocab, "
            "long long batch, long long k, double smoothing, double scale)");
  auto launcher = entry_params(s, s.variants[0], "cuda-launcher");
  EXPECT_EQ(launcher.back().type_text(), "cudaStream_t");
  EXPECT_EQ(launcher[launcher.size() - 2].type_text(), "double");
}

TEST(ModelOpsFormat, Fp8DtypesInPrototypes) {
  EXPECT_EQ(c_type_name(core::DType::f8e4m3, false), "uint8_t");
  EXPECT_EQ(c_type_name(core::DType::f8e4m3, true), "__nv_fp8_e4m3");
  EXPECT_EQ(c_type_name(core::DType::f8e5m2, true), "__nv_fp8_e5m2");
  EXPECT_EQ(c_type_name(core::DType::i8, true), "int8_t");
}

struct BadCase {
  const char* name;
  std::function<void(Json&)> mutate;
  const char* path;
  const char* message;
};

Json& var(Json& j, int i = 0) { return j["variants"][i]; }

const std::vector<BadCase> k_bad = {
    {"scalar without a value", [](Json& j) { j["workloads"]["test"][0].erase("scalars"); },
     "workloads.test[0].scalars.scale", "missing: scalar 'scale' has no \"value\" in \"scalars\""},
    {"unknown scalar in a workload", [](Json& j) { j["workloads"]["test"][0]["scalars"]["eps"] = 1; },
     "workloads.test[0].scalars.eps", "unknown scalar 'eps' (declared: smoothing, scale)"},
    {"scalar value not a number", [](Json& j) { j["workloads"]["test"][0]["scalars"]["scale"] = "1"; },
     "workloads.test[0].scalars.scale", "expected number"},
    {"scalar named like a param", [](Json& j) { j["scalars"][0]["name"] = "rows"; }, "scalars[0].name",
     "'rows' is also a param"},
    {"duplicate scalar", [](Json& j) { j["scalars"][1]["name"] = "smoothing"; }, "scalars[1].name",
     "duplicate scalar 'smoothing' (also scalars[0])"},
    {"scalar field typo", [](Json& j) { j["scalars"][0]["default"] = 1; }, "scalars[0].default",
     "unknown field 'default' (expected one of: name, value)"},
    {"scalar named like a tensor", [](Json& j) { j["scalars"][0]["name"] = "loss"; }, "tensors[5].name",
     "'loss' is also a scalar"},
    {"drawn shapes without a range for a scalar with no value", [](Json& j) { j["shapes"]["scalars"].erase("scale"); },
     "shapes.scalars.scale", "missing: scalar 'scale' has no \"value\", so drawn shapes need a range"},
    {"scalar range reversed", [](Json& j) { j["shapes"]["scalars"]["scale"] = Json::array({8, 1}); },
     "shapes.scalars.scale", "lo must be <= hi"},
    {"fp8 output with an rtol",
     [](Json& j) {
       var(j)["dtypes"]["loss"] = "f8e4m3";
       var(j)["tolerance"]["loss"] = {{"atol", 0.5}, {"rtol", 0.125}};
     },
     "variants[0].tolerance.loss.rtol",
     "an fp8 output is compared after decoding, with {\"exact\": true} or an absolute tolerance"},
    {"fp8 input beyond its range",
     [](Json& j) {
       var(j)["dtypes"]["logits"] = "f8e4m3";
       j["distributions"][0]["tensors"]["logits"] = {{"kind", "uniform"}, {"lo", -1000}, {"hi", 1000}};
     },
     "distributions[0].tensors.logits", "values beyond +-448 do not exist in f8e4m3"},
    {"e4m3 infinity special",
     [](Json& j) {
       var(j)["dtypes"]["logits"] = "f8e4m3";
       j["distributions"][0]["tensors"]["logits"]["specials"] = Json::array({"inf"});
       j["distributions"][0]["tensors"]["logits"]["specials_fraction"] = 0.1;
     },
     "distributions[0].tensors.logits.specials", "f8e4m3 has no infinity"},
    {"i8 values out of range",
     [](Json& j) { j["distributions"][0]["tensors"]["experts"]["hi"] = "min(vocab, 200) - 1"; },
     "distributions[0].tensors.experts.hi", "do not fit tensor 'experts', i8 in variant 'f32'"},
    {"missing dtype of a tensor that is not optional", [](Json& j) { var(j)["dtypes"].erase("labels"); },
     "variants[0].dtypes.labels", "missing: every tensor needs a dtype (only tensors declared \"optional\": true"},
    {"optional tensor no variant has", [](Json& j) { var(j, 1)["dtypes"].erase("weight"); }, "tensors[2].optional",
     "no variant has optional tensor 'weight'"},
    {"tolerance of an absent optional output",
     [](Json& j) {
       j["tensors"][5]["optional"] = true;
       var(j)["dtypes"].erase("loss");
     },
     "variants[0].tolerance.loss", "optional tensor 'loss' is not part of this variant"},
    {"optional not a boolean", [](Json& j) { j["tensors"][2]["optional"] = "yes"; }, "tensors[2].optional",
     "expected boolean"},
    {"set rule on a non-index output",
     [](Json& j) {
       j["tensors"][7].erase("set");
       j["tensors"][6]["set"] = {{"of", "logits"}, {"values", "top_idx"}};
     },
     "tensors[6].set", "tensor 'top' is f32 in variant 'f32' (variants[0]): a set rule belongs on an output of indices"},
    {"set rule into an output", [](Json& j) { j["tensors"][7]["set"]["of"] = "loss"; }, "tensors[7].set.of",
     "'loss' is not an input tensor"},
    {"set rule values of another shape", [](Json& j) { j["tensors"][7]["set"]["values"] = "loss"; },
     "tensors[7].set.values", "'loss' has shape [rows], 'top_idx' [rows, k]"},
    {"set rule on an input", [](Json& j) { j["tensors"][1]["set"] = {{"of", "logits"}}; }, "tensors[1].set",
     "a set rule compares an output"},
    {"set rule with more indices than a row holds",
     [](Json& j) {
       j["workloads"]["test"][0]["params"]["k"] = 10;
       j["distributions"][0]["tensors"]["experts"]["hi"] = "min(vocab, 64) + 10";
     },
     "tensors[7].set.of",
     "a row of indices no longer than a row of 'logits'"},
};

TEST(ModelOpsFormat, BadFieldsNameFilePathAndReason) {
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

TEST(ModelOpsFormat, EveryNewFieldIsPartOfTheMeaningDigest) {
  const std::string base = load(fixture::model_ops()).digest;
  const std::vector<std::function<void(Json&)>> changes = {
      [](Json& j) { j["scalars"][0]["value"] = 0.5; },
      [](Json& j) { j["workloads"]["test"][0]["scalars"]["scale"] = 2.0; },
      [](Json& j) { j["shapes"]["scalars"]["scale"] = Json::array({0.25, 8}); },
      [](Json& j) { j["distributions"][0]["tensors"]["labels"]["hi"] = "vocab - 2"; },
      [](Json& j) { j["distributions"][0]["tensors"]["cu"]["max_length"] = "rows + 1"; },
      [](Json& j) { j["distributions"][0]["tensors"]["experts"] = {{"kind", "permutation"}, {"per_row", true}}; },
      [](Json& j) {  // weight no longer optional
        j["tensors"][2].erase("optional");
        var(j)["dtypes"]["weight"] = "f32";
      },
      [](Json& j) { j["tensors"][7]["set"].erase("values"); },
      [](Json& j) { var(j)["dtypes"]["experts"] = "i32"; },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    SCOPED_TRACE(i);
    Json j = fixture::model_ops();
    changes[i](j);
    auto s = parse_spec(j.dump(), k_file);
    ASSERT_TRUE(s) << s.error().what();
    EXPECT_NE(s->digest, base);
  }
}

TEST(ModelOpsFormat, ToJsonLoadsAgainWithTheSameMeaning) {
  const core::Spec s = load(fixture::model_ops());
  nlohmann::json j = to_json(s);
  j.erase("contract");
  auto again = parse_spec(j.dump(), k_file);
  ASSERT_TRUE(again) << again.error().what() << "\n" << j.dump(2);
  EXPECT_EQ(again->scalars.size(), 2u);
  EXPECT_EQ(again->distributions[0].tensors.at("labels").bounds.at("hi"), "vocab - 1");
  EXPECT_EQ(again->distributions[0].tensors.at("cu").kind, "offsets");
  EXPECT_TRUE(again->distributions[0].tensors.at("experts").per_row);
  EXPECT_TRUE(again->tensors[2].optional);
  EXPECT_EQ(again->tensors[7].set->values, "top");
  EXPECT_EQ(again->test_workloads[1].scalars.at("scale"), 0.5);
  EXPECT_EQ(again->shapes->scalars[0].hi, 0.2);
}

TEST(ModelOpsFormat, DrawnShapesDrawScalarsFromTheirRanges) {
  const core::Spec s = load(fixture::model_ops());
  auto a = draw_workloads(s, 7), b = draw_workloads(s, 7);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->size(), 3u);
  for (size_t i = 0; i < a->size(); ++i) {
    const auto& w = (*a)[i];
    EXPECT_EQ(w.name, (*b)[i].name);  // reproducible
    ASSERT_EQ(w.scalars.size(), 2u);
    EXPECT_GE(w.scalars.at("smoothing"), 0);
    EXPECT_LE(w.scalars.at("smoothing"), 0.2);
    EXPECT_GE(w.scalars.at("scale"), 0.125);
    EXPECT_LE(w.scalars.at("scale"), 8);
    EXPECT_NE(w.name.find(",scale="), std::string::npos) << w.name;
  }
  // The params drawn do not depend on the scalars: the same spec without them draws the same shapes.
  Json j = fixture::model_ops();
  j.erase("scalars");
  for (auto& w : j["workloads"]["test"]) w.erase("scalars");
  j["workloads"]["bench"][0].erase("scalars");
  j["shapes"].erase("scalars");
  auto plain = draw_workloads(load(j), 7);
  ASSERT_TRUE(plain);
  ASSERT_EQ(plain->size(), a->size());
  for (size_t i = 0; i < a->size(); ++i) EXPECT_EQ((*plain)[i].params, (*a)[i].params);
}

}  // namespace
}  // namespace kwb::spec
