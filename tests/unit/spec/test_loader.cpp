#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/loader.hpp"

namespace kwb::spec {
namespace {

using Json = nlohmann::ordered_json;
const std::string k_file = "specs/demo/spec.json";

// A valid spec exercising every section: two outputs (one integer), two inputs.
const char* const k_base = R"json({
  // line comment
  "op": "demo",
  "version": 2,
  "summary": "Test fixture.",
  "params": ["rows", "cols"],
  /* block
     comment */
  "tensors": [
    {"name": "x", "role": "in", "shape": ["rows", "cols"]},
    {"name": "bias", "role": "in", "shape": ["cols"]},
    {"name": "y", "role": "out", "shape": ["rows", "cols"]},
    {"name": "count", "role": "out", "shape": ["rows", 1]}
  ],
  "variants": [
    {"name": "f32", "entry": "kwb_demo_f32",
     "dtypes": {"x": "f32", "bias": "f32", "y": "f32", "count": "i32"},
     "tolerance": {"y": {"atol": 1e-6, "rtol": 1e-4}, "count": {"exact": true}},
     "roofline": {"bytes": "4*(2*rows*cols + cols + rows)", "flops": "2*rows*cols"}}
  ],
  "distributions": [
    {"name": "normal", "tensors": {"x": {"kind": "normal", "mean": 0, "stddev": 1},
                                   "bias": {"kind": "uniform", "lo": -1, "hi": 1}}},
    {"name": "specials", "note": "NaN and infinities",
     "tensors": {"x": {"kind": "uniform", "lo": -1, "hi": 1, "specials": ["nan", "-inf"], "specials_fraction": 0.1},
                 "bias": {"kind": "constant", "value": 0}}}
  ],
  "workloads": {
    "test": [{"name": "2x3", "params": {"rows": 2, "cols": 3}},
             {"name": "1x1", "params": {"cols": 1, "rows": 1}}],
    "bench": [{"name": "big", "params": {"rows": 64, "cols": 64}, "backends": ["cuda"], "label": "GPU size"}]
  }
})json";

Json base() { return Json::parse(k_base, nullptr, true, /*ignore_comments=*/true); }

TEST(Loader, ShippedSoftmaxSpec) {
  const std::string file = KWB_TEST_SOURCE_DIR "/specs/softmax/spec.json";
  auto s = load_spec(file);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_EQ(s->op, "softmax");
  EXPECT_EQ(s->version, 1);
  EXPECT_FALSE(s->summary.empty());
  EXPECT_EQ(s->file, file);
  EXPECT_TRUE(s->deterministic);
  EXPECT_EQ(s->params, (std::vector<std::string>{"rows", "cols"}));
  ASSERT_EQ(s->tensors.size(), 2u);
  EXPECT_EQ(s->tensors[0].name, "x");
  EXPECT_EQ(s->tensors[0].role, core::Role::in);
  EXPECT_EQ(s->tensors[0].shape, (std::vector<std::string>{"rows", "cols"}));
  EXPECT_EQ(s->tensors[1].role, core::Role::out);
  ASSERT_EQ(s->variants.size(), 1u);
  const core::Variant& v = s->variants[0];
  EXPECT_EQ(v.name, "f32");
  EXPECT_EQ(v.entry, "kwb_softmax_f32");
  EXPECT_EQ(v.dtypes.at("x"), core::DType::f32);
  EXPECT_EQ(v.dtypes.at("y"), core::DType::f32);
  EXPECT_EQ(v.tolerance.size(), 1u);
  EXPECT_FALSE(v.tolerance.at("y").exact);
  EXPECT_DOUBLE_EQ(v.tolerance.at("y").atol, 1e-6);
  EXPECT_DOUBLE_EQ(v.tolerance.at("y").rtol, 1e-4);
  EXPECT_EQ(v.roofline.bytes, "4*rows*cols*2");
  EXPECT_EQ(v.roofline.flops, "5*rows*cols");
  ASSERT_EQ(s->distributions.size(), 4u);
  EXPECT_EQ(s->distributions[0].name, "normal");
  EXPECT_EQ(s->distributions[0].tensors.at("x").kind, "normal");
  EXPECT_EQ(s->distributions[0].tensors.at("x").stddev, 1);
  const core::Generator& off = s->distributions[1].tensors.at("x");
  EXPECT_EQ(off.kind, "uniform");
  EXPECT_EQ(off.lo, 9990);
  EXPECT_EQ(off.hi, 10010);
  EXPECT_FALSE(s->distributions[1].note.empty());
  const core::Generator& sp = s->distributions[3].tensors.at("x");
  EXPECT_EQ(sp.specials, (std::vector<std::string>{"+0", "-0", "denormal"}));
  EXPECT_DOUBLE_EQ(sp.specials_fraction, 0.05);
  ASSERT_EQ(s->test_workloads.size(), 7u);
  EXPECT_EQ(s->test_workloads[0].name, "1x1");
  EXPECT_EQ(s->test_workloads[6].params.at("cols"), 4099);
  EXPECT_TRUE(s->test_workloads[0].backends.empty());
  ASSERT_EQ(s->bench_workloads.size(), 3u);
  EXPECT_EQ(s->bench_workloads[2].backends, (std::vector<std::string>{"cuda", "cuda-launcher"}));
  EXPECT_EQ(s->bench_workloads[1].label, "LM head over a 32k vocabulary");
}

TEST(Loader, BaseFixtureWithCommentsLoads) {
  auto s = parse_spec(k_base, k_file);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_EQ(s->op, "demo");
  EXPECT_EQ(s->version, 2);
  EXPECT_EQ(s->tensors[3].shape, (std::vector<std::string>{"rows", "1"}));  // integers become expressions
  EXPECT_TRUE(s->variants[0].tolerance.at("count").exact);
  EXPECT_EQ(s->variants[0].dtypes.at("count"), core::DType::i32);
  EXPECT_EQ(s->distributions[1].tensors.at("bias").kind, "constant");
  EXPECT_EQ(s->test_workloads[1].params.at("rows"), 1);
  EXPECT_EQ(s->bench_workloads[0].label, "GPU size");
}

TEST(Loader, DeterministicIsOptional) {
  Json j = base();
  j["deterministic"] = false;
  auto s = parse_spec(j.dump(), k_file);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_FALSE(s->deterministic);
}

TEST(Loader, FiniteIsAnOptionalPromiseOfOutputs) {
  Json j = base();
  j["tensors"][2]["finite"] = false;
  auto s = parse_spec(j.dump(), k_file);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  EXPECT_EQ(s->tensors[2].finite, std::optional<bool>(false));
  EXPECT_FALSE(s->tensors[3].finite.has_value());  // left out: derived from the distributions
}

struct BadCase {
  const char* name;
  std::function<void(Json&)> mutate;
  const char* path;     // the JSON path expected after "<file>: "
  const char* message;  // expected substring of the message
};

Json& tol(Json& j) { return j["variants"][0]["tolerance"]; }
Json& gen(Json& j, const char* t) { return j["distributions"][0]["tensors"][t]; }

const std::vector<BadCase> k_bad = {
    {"missing top-level field", [](Json& j) { j.erase("summary"); }, "summary", "missing required field"},
    {"missing nested field", [](Json& j) { j["variants"][0].erase("entry"); }, "variants[0].entry",
     "missing required field"},
    {"wrong type in workload", [](Json& j) { j["workloads"]["test"][1]["params"]["cols"] = "4k"; },
     "workloads.test[1].params.cols", "expected integer, got string \"4k\""},
    {"float version", [](Json& j) { j["version"] = 1.5; }, "version", "expected integer, got number 1.5"},
    {"version zero", [](Json& j) { j["version"] = 0; }, "version", "must be >= 1, got 0"},
    {"bad op name", [](Json& j) { j["op"] = "Soft-max"; }, "op", "expected a name of the form [a-z][a-z0-9_]*"},
    {"duplicate param", [](Json& j) { j["params"].push_back("rows"); }, "params[2]",
     "duplicate param 'rows' (also params[0])"},
    {"bad role", [](Json& j) { j["tensors"][2]["role"] = "output"; }, "tensors[2].role",
     "expected one of \"in\", \"out\", \"inout\", got \"output\""},
    {"no output tensor", [](Json& j) { j["tensors"][2]["role"] = "in"; j["tensors"][3]["role"] = "in"; },
     "tensors", "no output"},
    {"unknown dtype", [](Json& j) { j["variants"][0]["dtypes"]["x"] = "f8"; }, "variants[0].dtypes.x",
     "unknown dtype 'f8' (known: f32, f64, bf16, f16, i32, u32, i64, u8, f8e4m3, f8e5m2, i8)"},
    {"dtype missing for a tensor", [](Json& j) { j["variants"][0]["dtypes"].erase("bias"); },
     "variants[0].dtypes.bias", "missing: every tensor needs a dtype"},
    {"bad expression", [](Json& j) { j["tensors"][0]["shape"][1] = "cols*"; }, "tensors[0].shape[1]",
     "bad expression \"cols*\": column 6: expected a number, a name or '('"},
    {"unknown name in shape", [](Json& j) { j["tensors"][0]["shape"][1] = "colz"; }, "tensors[0].shape[1]",
     "unknown name 'colz' in \"colz\" (declared params: rows, cols)"},
    {"unknown name in roofline", [](Json& j) { j["variants"][0]["roofline"]["flops"] = "5*n"; },
     "variants[0].roofline.flops", "unknown name 'n'"},
    {"roofline missing flops", [](Json& j) { j["variants"][0]["roofline"].erase("flops"); },
     "variants[0].roofline.flops", "missing required field"},
    {"unknown key (typo)", [](Json& j) { j["variants"][0]["tolerence"] = Json::object(); },
     "variants[0].tolerence",
     "unknown field 'tolerence' (expected one of: name, entry, dtypes, tolerance, roofline)"},
    {"unknown top-level key", [](Json& j) { j["baseline"] = "cublas"; }, "baseline", "unknown field 'baseline'"},
    {"missing tolerance", [](Json& j) { tol(j).erase("y"); }, "variants[0].tolerance.y",
     "missing: every out/inout tensor needs a tolerance"},
    {"tolerance on an input", [](Json& j) { tol(j)["x"] = {{"atol", 0}, {"rtol", 0}}; },
     "variants[0].tolerance.x", "tensor 'x' is an input (role \"in\"): only out/inout tensors take a tolerance"},
    {"non-exact integer output", [](Json& j) { tol(j)["count"] = {{"atol", 0.5}, {"rtol", 0}}; },
     "variants[0].tolerance.count", "tensor 'count' has integer dtype i32: its tolerance must be {\"exact\": true}"},
    {"tolerance without rtol", [](Json& j) { tol(j)["y"].erase("rtol"); }, "variants[0].tolerance.y.rtol",
     "missing: a tolerance needs both \"atol\" and \"rtol\" (there are no defaults)"},
    {"exact false", [](Json& j) { tol(j)["count"]["exact"] = false; }, "variants[0].tolerance.count.exact",
     "must be true when given"},
    {"exact and atol", [](Json& j) { tol(j)["count"]["atol"] = 0; }, "variants[0].tolerance.count", "not both"},
    {"negative atol", [](Json& j) { tol(j)["y"]["atol"] = -1; }, "variants[0].tolerance.y.atol",
     "must be >= 0, got -1"},
    {"duplicate variant", [](Json& j) { j["variants"].push_back(j["variants"][0]); }, "variants[1].name",
     "duplicate variant name 'f32' (also variants[0])"},
    {"no variants", [](Json& j) { j["variants"] = Json::array(); }, "variants", "must not be empty"},
    {"distribution missing a tensor", [](Json& j) { j["distributions"][0]["tensors"].erase("bias"); },
     "distributions[0].tensors.bias", "missing: every in/inout tensor needs a generator"},
    {"generator for an output", [](Json& j) { gen(j, "y") = {{"kind", "constant"}, {"value", 1}}; },
     "distributions[0].tensors.y", "tensor 'y' is an output"},
    {"unknown generator kind", [](Json& j) { gen(j, "x")["kind"] = "gauss"; },
     "distributions[0].tensors.x.kind", "unknown generator kind \"gauss\""},
    {"field of another kind", [](Json& j) { gen(j, "x")["lo"] = 0; }, "distributions[0].tensors.x.lo",
     "unknown field 'lo' (expected one of: kind, mean, stddev, specials, specials_fraction)"},
    {"uniform lo >= hi", [](Json& j) { gen(j, "bias")["hi"] = -1; }, "distributions[0].tensors.bias.hi",
     "must be > lo (-1), got -1"},
    {"normal stddev 0", [](Json& j) { gen(j, "x")["stddev"] = 0; }, "distributions[0].tensors.x.stddev",
     "must be > 0"},
    {"specials without fraction", [](Json& j) { gen(j, "x")["specials"] = Json::array({"nan"}); },
     "distributions[0].tensors.x.specials_fraction", "missing: required when \"specials\" is given"},
    {"unknown special", [](Json& j) { j["distributions"][1]["tensors"]["x"]["specials"][1] = "NaN"; },
     "distributions[1].tensors.x.specials[1]", "unknown special 'NaN' (known: nan, inf, -inf"},
    {"fraction out of range", [](Json& j) { j["distributions"][1]["tensors"]["x"]["specials_fraction"] = 1.5; },
     "distributions[1].tensors.x.specials_fraction", "must be in (0, 1], got 1.5"},
    {"float generator on integer input", [](Json& j) { j["variants"][0]["dtypes"]["bias"] = "i32"; },
     "distributions[0].tensors.bias.kind",
     "tensor 'bias' is i32 in variant 'f32': integer tensors take only \"int_uniform\", \"constant\", \"offsets\""},
    {"int_uniform outside u8",
     [](Json& j) {
       j["variants"][0]["dtypes"]["bias"] = "u8";
       gen(j, "bias") = {{"kind", "int_uniform"}, {"lo", 0}, {"hi", 300}};
     },
     "distributions[0].tensors.bias", "[0, 300] does not fit in u8"},
    {"duplicate distribution", [](Json& j) { j["distributions"][1]["name"] = "normal"; },
     "distributions[1].name", "duplicate distribution name 'normal' (also distributions[0])"},
    {"workload missing a param", [](Json& j) { j["workloads"]["test"][0]["params"].erase("cols"); },
     "workloads.test[0].params.cols", "missing: every declared param needs a value (rows, cols)"},
    {"workload unknown param", [](Json& j) { j["workloads"]["bench"][0]["params"]["n"] = 3; },
     "workloads.bench[0].params.n", "unknown param 'n' (declared: rows, cols)"},
    {"workload param zero", [](Json& j) { j["workloads"]["test"][0]["params"]["rows"] = 0; },
     "workloads.test[0].params.rows", "must be >= 1, got 0"},
    {"non-positive shape", [](Json& j) { j["tensors"][1]["shape"][0] = "cols-3"; }, "workloads.test[0]",
     "tensor 'bias': dimension 0 \"cols-3\" is 0; dimensions must be >= 1"},
    {"roofline overflow",
     [](Json& j) { j["variants"][0]["roofline"]["bytes"] = "rows*cols*4611686018427387904"; },
     "workloads.test[0]", "variant 'f32' roofline.bytes: \"rows*cols*4611686018427387904\": overflow"},
    {"duplicate workload", [](Json& j) { j["workloads"]["test"][1]["name"] = "2x3"; },
     "workloads.test[1].name", "duplicate workload name '2x3' (also workloads.test[0])"},
    {"bad workload name", [](Json& j) { j["workloads"]["test"][1]["name"] = "1 x 1"; },
     "workloads.test[1].name", "expected a name of the form [A-Za-z0-9_.-]+"},
    {"no bench workloads", [](Json& j) { j["workloads"]["bench"] = Json::array(); }, "workloads.bench",
     "must not be empty"},
    {"missing test workloads", [](Json& j) { j["workloads"].erase("test"); }, "workloads.test",
     "missing required field"},
    {"unknown backend", [](Json& j) { j["workloads"]["bench"][0]["backends"][0] = "gpu"; },
     "workloads.bench[0].backends[0]", "unknown backend \"gpu\" (known: cpu, cuda, cuda-launcher)"},
    {"deterministic not bool", [](Json& j) { j["deterministic"] = "yes"; }, "deterministic",
     "expected boolean, got string \"yes\""},
    {"finite on an input", [](Json& j) { j["tensors"][0]["finite"] = true; }, "tensors[0].finite",
     "tensor 'x' is an input (role \"in\"): \"finite\" is a promise about outputs"},
    {"finite not bool", [](Json& j) { j["tensors"][2]["finite"] = 1; }, "tensors[2].finite",
     "expected boolean, got number 1"},
};

TEST(Loader, BadSpecsNameFilePathAndReason) {
  for (const auto& c : k_bad) {
    SCOPED_TRACE(c.name);
    Json j = base();
    c.mutate(j);
    auto s = parse_spec(j.dump(), k_file);
    ASSERT_FALSE(s.has_value());
    EXPECT_EQ(s.error().where, k_file + ": " + c.path);
    EXPECT_NE(s.error().message.find(c.message), std::string::npos) << s.error().message;
  }
}

TEST(Loader, JsonSyntaxErrorGivesLineAndColumn) {
  auto s = parse_spec("{\n  \"op\": \"demo\",\n  \"version\": x\n}", k_file);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().where, k_file + ": line 3, column 14");
  EXPECT_NE(s.error().message.find("invalid JSON: syntax error"), std::string::npos) << s.error().message;
}

TEST(Loader, DuplicateKeyIsAnError) {
  std::string text = k_base;
  text.replace(text.find("\"rows\": 2,"), 10, "\"rows\": 2, \"rows\": 5,");
  auto s = parse_spec(text, k_file);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().where, k_file + ": workloads.test[0].params.rows");
  EXPECT_NE(s.error().message.find("duplicate key"), std::string::npos);
}

TEST(Loader, TopLevelMustBeAnObject) {
  auto s = parse_spec("[1, 2]", k_file);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().what(), k_file + ": expected object, got array");
}

TEST(Loader, MissingFileIsAnError) {
  auto s = load_spec("/nonexistent/kwb/spec.json");
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().what().find("/nonexistent/kwb/spec.json"), std::string::npos);
}

TEST(TensorShape, EvaluatesWithParams) {
  auto s = parse_spec(k_base, k_file);
  ASSERT_TRUE(s.has_value()) << s.error().what();
  auto y = tensor_shape(*s, *s->find_tensor("y"), {{"rows", 3}, {"cols", 5}});
  ASSERT_TRUE(y.has_value()) << y.error().what();
  EXPECT_EQ(*y, (std::vector<int64_t>{3, 5}));
  auto count = tensor_shape(*s, *s->find_tensor("count"), {{"rows", 7}, {"cols", 5}});
  EXPECT_EQ(count.value(), (std::vector<int64_t>{7, 1}));

  auto missing = tensor_shape(*s, *s->find_tensor("y"), {{"rows", 3}});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().where, k_file + ": tensor 'y'");
  EXPECT_NE(missing.error().message.find("dimension 1: \"cols\": unknown name 'cols' (known: rows)"),
            std::string::npos)
      << missing.error().message;

  auto zero = tensor_shape(*s, *s->find_tensor("y"), {{"rows", 0}, {"cols", 5}});
  ASSERT_FALSE(zero.has_value());
  EXPECT_NE(zero.error().message.find("dimension 0 \"rows\" is 0; dimensions must be >= 1"), std::string::npos);

  auto huge = tensor_shape(*s, *s->find_tensor("y"), {{"rows", int64_t{1} << 40}, {"cols", int64_t{1} << 40}});
  ASSERT_FALSE(huge.has_value());
  EXPECT_NE(huge.error().message.find("element count"), std::string::npos);
}

}  // namespace
}  // namespace kwb::spec
