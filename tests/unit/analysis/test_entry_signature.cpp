#include "spec/spec_json.hpp"
#include "support.hpp"

namespace kwb::analysis::test {
namespace {

TEST(EntrySignature, ExactSignatureIsClean) {
  auto r = run(vector_add("for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

TEST(EntrySignature, EquivalentSpellingsMatchCanonically) {
  // float const* == const float*, typedefs, __restrict, long == int64_t, top-level const.
  auto r = run("#include <cstdint>\nusing real = float;\ntypedef long i64;\n"
               "extern \"C\" void kwb_vector_add_f32(real const* __restrict a, const float* b, real* const c, "
               "const i64 n) { for (i64 i = 0; i < n; ++i) c[i] = a[i] + b[i]; }\n");
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

TEST(EntrySignature, MismatchShowsExpectedAndActual) {
  auto r = run("#include <cstdint>\nextern \"C\" void kwb_softmax_f32(float* x, float* y, int rows, int cols) {}\n",
               "softmax");
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "entry-signature");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_EQ(f->severity, "error");
  EXPECT_EQ(f->line, 2);
  EXPECT_NE(f->message.find("expected: void kwb_softmax_f32(const float* x, float* y, int64_t rows, int64_t cols)"),
            std::string::npos)
      << f->message;
  EXPECT_NE(f->message.find("actual: void kwb_softmax_f32(float* x, float* y, int rows, int cols)"), std::string::npos)
      << f->message;
  EXPECT_NE(f->message.find("parameter 1 ('x'): expected const float*, got float*"), std::string::npos) << f->message;
}

TEST(EntrySignature, WrongElementTypeAndCount) {
  auto wrong_type = run("#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const double* a, const float* b, "
                        "float* c, int64_t n) {}\n");
  KWB_REQUIRE_AVAILABLE(wrong_type);
  ASSERT_EQ(count(wrong_type, "entry-signature"), 1) << dump(wrong_type);
  EXPECT_NE(find(wrong_type, "entry-signature")->message.find("got const double*"), std::string::npos);
  auto too_few = run("#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, float* c, int64_t n) {}\n");
  ASSERT_EQ(count(too_few, "entry-signature"), 1) << dump(too_few);
  EXPECT_NE(find(too_few, "entry-signature")->message.find("3 parameters instead of 4"), std::string::npos);
  auto returns = run("#include <cstdint>\nextern \"C\" int kwb_vector_add_f32(const float* a, const float* b, float* c, "
                     "int64_t n) { return 0; }\n");
  ASSERT_EQ(count(returns, "entry-signature"), 1) << dump(returns);
  EXPECT_NE(find(returns, "entry-signature")->message.find("must return void"), std::string::npos);
}

// A missing entry point names the function that looks meant to be it, with its line.
TEST(EntrySignature, MissingEntryPointsAtTheIntendedFunction) {
  auto same_params = run("#include <cstdint>\nstatic int helper(int x) { return x; }\n"
                         "extern \"C\" void add(const float* a, const float* b, float* c, int64_t n) {}\n");
  KWB_REQUIRE_AVAILABLE(same_params);
  const auto* f = find(same_params, "entry-signature");
  ASSERT_NE(f, nullptr) << dump(same_params);
  EXPECT_EQ(f->line, 3);
  EXPECT_NE(f->message.find("'add' at line 3 looks intended (the same parameters): name it 'kwb_vector_add_f32'"),
            std::string::npos)
      << f->message;
  auto misspelled = run("#include <cstdint>\nextern \"C\" void kwb_vector_add_f23(const float* a, const float* b, "
                        "float* c, int n) {}\n");
  f = find(misspelled, "entry-signature");
  ASSERT_NE(f, nullptr) << dump(misspelled);
  EXPECT_NE(f->message.find("'kwb_vector_add_f23' at line 2 looks intended (a similar name and as many parameters)"),
            std::string::npos)
      << f->message;
  // Nothing alike: no guess.
  auto unrelated = run("#include <cstdint>\nextern \"C\" void other(const float* a) {}\n");
  f = find(unrelated, "entry-signature");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->message.find("looks intended"), std::string::npos) << f->message;
}

// The prototype GET /v1/specs/{op} publishes is the text these findings print (one source).
TEST(EntrySignature, ExpectedTextIsTheSpecContractPrototype) {
  auto r = run("#include <cstdint>\nextern \"C\" void kwb_softmax_f32(float* x, float* y, int rows, int cols) {}\n",
               "softmax");
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "entry-signature");
  ASSERT_NE(f, nullptr) << dump(r);
  std::string prototype = spec::to_json(test::spec("softmax"))["contract"]["f32"]["cpu"]["prototype"];
  ASSERT_EQ(prototype.rfind("extern \"C\" ", 0), 0u) << prototype;
  EXPECT_NE(f->message.find("expected: " + prototype.substr(11)), std::string::npos) << f->message << "\n" << prototype;
}

TEST(EntrySignature, MissingEntry) {
  auto r = run("#include <cstdint>\nextern \"C\" void other(const float* a) {}\n");
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "entry-signature");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_NE(f->message.find("entry point 'kwb_vector_add_f32' not found"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("expected: extern \"C\" void kwb_vector_add_f32(const float* a, const float* b, "
                            "float* c, int64_t n)"),
            std::string::npos)
      << f->message;
}

TEST(EntrySignature, CppLinkageIsNotFound) {
  auto r = run("#include <cstdint>\nvoid kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {}\n");
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "entry-signature");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_NE(f->message.find("entry point 'kwb_vector_add_f32' not found"), std::string::npos);
  EXPECT_NE(f->message.find("C++ linkage"), std::string::npos);
}

TEST(EntrySignature, DeclaredButNotDefined) {
  auto r = run("#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float*, const float*, float*, int64_t);\n");
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "entry-signature");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_NE(f->message.find("declared but not defined"), std::string::npos);
}

TEST(EntrySignature, EarlierExternCDeclarationGivesCLinkage) {
  auto r = run("#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float*, const float*, float*, int64_t);\n"
               "void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {}\n");
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "entry-signature"), 0) << dump(r);
}

TEST(EntrySignature, Bf16IsUint16OnCpu) {
  auto ok = run("#include <cstdint>\nextern \"C\" void kwb_gemm_bf16(const uint16_t* a, const uint16_t* b, float* c, "
                "int64_t m, int64_t n, int64_t k) {}\n",
                "gemm", "cpu", "bf16");
  KWB_REQUIRE_AVAILABLE(ok);
  EXPECT_EQ(count(ok, "entry-signature"), 0) << dump(ok);
  auto bad = run("#include <cstdint>\nextern \"C\" void kwb_gemm_bf16(const int16_t* a, const uint16_t* b, float* c, "
                 "int64_t m, int64_t n, int64_t k) {}\n",
                 "gemm", "cpu", "bf16");
  EXPECT_EQ(count(bad, "entry-signature"), 1) << dump(bad);
}

TEST(EntrySignature, CudaKernelsNamedByTheLaunchPlan) {
  std::string src = "extern \"C\" __global__ void add(const float* a, const float* b, float* c, long long n) {}\n"
                    "__global__ void mangled(float* c) {}\n"
                    "extern \"C\" __device__ void helper(float* c) {}\n";
  auto ok = run(src, "vector_add", "cuda", "f32", {"add"});
  KWB_REQUIRE_AVAILABLE(ok);
  EXPECT_EQ(count(ok, "entry-signature"), 0) << dump(ok);
  auto missing = run(src, "vector_add", "cuda", "f32", {"add", "absent", "mangled", "helper"});
  EXPECT_EQ(count(missing, "entry-signature"), 3) << dump(missing);
  std::string all = dump(missing);
  EXPECT_NE(all.find("kernel 'absent' named by the launch plan not found (__global__ kernels here: add, mangled)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("kernel 'mangled' has C++ linkage"), std::string::npos) << all;
  EXPECT_NE(all.find("'helper' must be an extern \"C\" __global__ kernel"), std::string::npos) << all;
}

TEST(EntrySignature, CudaEntryKernelWithoutLaunchPlan) {
  auto ok = run("#include <cstdint>\nextern \"C\" __global__ void kwb_vector_add_f32(const float* a, const float* b, "
                "float* c, int64_t n) {}\n",
                "vector_add", "cuda");
  KWB_REQUIRE_AVAILABLE(ok);
  EXPECT_EQ(count(ok, "entry-signature"), 0) << dump(ok);
  auto host = run("#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, "
                  "float* c, int64_t n) {}\n",
                  "vector_add", "cuda");
  ASSERT_EQ(count(host, "entry-signature"), 1) << dump(host);
  EXPECT_NE(find(host, "entry-signature")->message.find("must be a __global__ kernel"), std::string::npos);
}

TEST(EntrySignature, LauncherTakesAStreamLast) {
  std::string good = "#include <cstdint>\n#include <cuda_runtime.h>\nextern \"C\" void kwb_vector_add_f32(const float* "
                     "a, const float* b, float* c, int64_t n, cudaStream_t stream) {}\n";
  auto ok = run(good, "vector_add", "cuda-launcher");
  KWB_REQUIRE_AVAILABLE(ok);
  EXPECT_EQ(count(ok, "entry-signature"), 0) << dump(ok);
  auto bad = run("#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, "
                 "int64_t n) {}\n",
                 "vector_add", "cuda-launcher");
  ASSERT_EQ(count(bad, "entry-signature"), 1) << dump(bad);
  EXPECT_NE(find(bad, "entry-signature")->message.find("cudaStream_t stream"), std::string::npos);
}

}  // namespace
}  // namespace kwb::analysis::test

namespace kwb::analysis::test {
namespace {

core::LaunchArg tensor(const std::string& name, int index) { return {core::LaunchArg::Kind::tensor, name, index}; }
core::LaunchArg param(const std::string& name, int index) { return {core::LaunchArg::Kind::param, name, index}; }

Report run_launches(const std::string& src, std::vector<KernelLaunch> launches) {
  use_test_cache_dir();
  const auto& s = spec("vector_add");
  Request req{s, s.variants.front(), "cuda", src, "k.cu", {}, {}};
  req.launches = std::move(launches);
  return analyze(req);
}

TEST(EntrySignature, KernelParametersTakeTheLaunchArguments) {
  std::string src = "extern \"C\" __global__ void add(const float* a, const float* b, float* c, long long n) {}\n"
                    "extern \"C\" __global__ void fill(float* c, void* scratch, long n) {}\n";
  auto ok = run_launches(src, {{"add", {tensor("a", 0), tensor("b", 1), tensor("c", 2), param("n", 0)}, 1},
                               {"fill", {tensor("c", 2), {core::LaunchArg::Kind::workspace, "workspace", 0}, param("n", 0)}, 2}});
  KWB_REQUIRE_AVAILABLE(ok);
  EXPECT_TRUE(ok.findings.empty()) << dump(ok);

  auto swapped = run_launches(src, {{"add", {tensor("c", 2), tensor("b", 1), tensor("a", 0), param("n", 0)}, 3}});
  ASSERT_EQ(count(swapped, "entry-signature"), 1) << dump(swapped);
  const std::string m = find(swapped, "entry-signature")->message;
  EXPECT_NE(m.find("kernel 'add' does not take the arguments of the launch at line 3 (parameter 1 for argument 'c': "
                   "expected float*, got const float*)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("expected: __global__ void add(float* c, const float* b, const float* a, long long n)"),
            std::string::npos)
      << m;

  auto count_mismatch = run_launches(src, {{"add", {tensor("a", 0), tensor("b", 1), tensor("c", 2)}, 1}});
  EXPECT_NE(dump(count_mismatch).find("4 parameters for 3 arguments"), std::string::npos) << dump(count_mismatch);

  auto missing = run_launches(src, {{"absent", {tensor("c", 2)}, 1}, {"absent", {tensor("c", 2)}, 2}});
  EXPECT_EQ(count(missing, "entry-signature"), 1) << dump(missing);  // reported once per kernel
}

// The spec fields for model ops (docs/specs.md): an optional tensor the variant leaves out is not
// a parameter, scalars are doubles after the params, i8 is int8_t and fp8 uint8_t on the host.
const core::Spec& model_op_spec() {
  static const core::Spec s = [] {
    auto parsed = spec::parse_spec(R"({"op": "mop", "version": 1, "summary": "s", "params": ["n"],
      "scalars": [{"name": "eps", "value": 1e-5}],
      "tensors": [{"name": "x", "role": "in", "shape": ["n"]}, {"name": "bias", "role": "in", "shape": ["n"], "optional": true},
                  {"name": "ids", "role": "in", "shape": ["n"]}, {"name": "y", "role": "out", "shape": ["n"]}],
      "variants": [{"name": "v", "entry": "kwb_mop_v", "dtypes": {"x": "f8e4m3", "ids": "i8", "y": "f32"},
                    "tolerance": {"y": {"atol": 1e-6, "rtol": 1e-5}}, "roofline": {"bytes": "6*n", "flops": "n"}},
                   {"name": "b", "entry": "kwb_mop_b", "dtypes": {"x": "f8e4m3", "bias": "f32", "ids": "i8", "y": "f32"},
                    "tolerance": {"y": {"atol": 1e-6, "rtol": 1e-5}}, "roofline": {"bytes": "10*n", "flops": "n"}}],
      "distributions": [{"name": "d", "tensors": {"x": {"kind": "normal", "mean": 0, "stddev": 1},
        "bias": {"kind": "uniform", "lo": 0, "hi": 1}, "ids": {"kind": "int_uniform", "lo": 0, "hi": 100}}}],
      "workloads": {"test": [{"name": "n1", "params": {"n": 1}}], "bench": [{"name": "n9", "params": {"n": 9}}]}})",
                                   "mop/spec.json");
    if (!parsed) throw std::runtime_error(parsed.error().what());
    return *parsed;
  }();
  return s;
}

Report run_model_op(const std::string& source, const std::string& variant) {
  use_test_cache_dir();
  const auto& s = model_op_spec();
  return analyze(Request{s, *s.find_variant(variant), "cpu", source, "k.cpp", {}, {}});
}

TEST(EntrySignature, ScalarsAreDoublesAndOptionalTensorsFollowTheVariant) {
  auto clean = run_model_op("#include <cstdint>\nextern \"C\" void kwb_mop_v(const uint8_t* x, const int8_t* ids, float* y, "
                            "int64_t n, double eps) {}\n",
                            "v");
  KWB_REQUIRE_AVAILABLE(clean);
  EXPECT_TRUE(clean.findings.empty()) << dump(clean);
  auto with_bias = run_model_op("#include <cstdint>\nextern \"C\" void kwb_mop_b(const uint8_t* x, const float* bias, "
                                "const int8_t* ids, float* y, int64_t n, double eps) {}\n",
                                "b");
  EXPECT_TRUE(with_bias.findings.empty()) << dump(with_bias);
  auto float_eps = run_model_op("#include <cstdint>\nextern \"C\" void kwb_mop_v(const uint8_t* x, const int8_t* ids, "
                                "float* y, int64_t n, float eps) {}\n",
                                "v");
  ASSERT_EQ(count(float_eps, "entry-signature"), 1) << dump(float_eps);
  EXPECT_NE(find(float_eps, "entry-signature")->message.find("expected: void kwb_mop_v(const uint8_t* x, const int8_t* ids, "
                                                             "float* y, int64_t n, double eps)"),
            std::string::npos)
      << dump(float_eps);
  auto unsigned_ids = run_model_op("#include <cstdint>\nextern \"C\" void kwb_mop_v(const uint8_t* x, const uint8_t* ids, "
                                   "float* y, int64_t n, double eps) {}\n",
                                   "v");
  EXPECT_EQ(count(unsigned_ids, "entry-signature"), 1) << dump(unsigned_ids);
}

}  // namespace
}  // namespace kwb::analysis::test
