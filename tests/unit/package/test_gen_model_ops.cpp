// The generated files for the model-op fields of the spec format (docs/export.md "Model ops"), on
// the format examples of tests/integration/export_cases: cross_entropy's scalar after its params and its
// optional weight only in the variant that has it, labels drawn from "vocab - 1" evaluated per
// workload, topk's indices compared as a set with their values output. (The package built and run:
// tests/integration/test_export_model_ops.cpp.)
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "package/cxx.hpp"
#include "package/model.hpp"
#include "spec/catalog.hpp"

namespace kwb::package {
namespace {

const spec::Catalog& spec_cases() {
  static const auto catalog = [] {
    auto c = spec::Catalog::load(std::filesystem::path(KWB_TEST_SOURCE_DIR) / "tests/integration/export_cases");
    if (!c) throw std::runtime_error(c.error().what());
    return std::move(*c);
  }();
  return catalog;
}

Target target(const std::string& op, const std::string& variant) {
  Target t;
  t.spec = spec_cases().find(op);
  if (!t.spec) throw std::runtime_error("no spec case " + op);
  t.variant = t.spec->find_variant(variant);
  if (!t.variant) throw std::runtime_error("no variant " + variant);
  t.function = function_name(op, variant);
  t.cpu = CpuKernel{op + "/cpu/k.cpp", t.variant->entry, "any", 0, {}, "cpu/" + t.function + ".cpp",
                    t.variant->entry + "__" + t.function};
  return t;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ModelOpExport, ScalarsFollowTheParamsAndAnOptionalTensorOnlyWhereTheVariantHasIt) {
  const Target plain = target("cross_entropy", "bf16"), weighted = target("cross_entropy", "bf16_weighted");
  EXPECT_EQ(signature(plain),
            "const uint16_t* logits, const int32_t* labels, float* loss, int64_t rows, int64_t vocab, double label_smoothing");
  EXPECT_EQ(signature(weighted), "const uint16_t* logits, const int32_t* labels, const float* weight, float* loss, "
                                 "int64_t rows, int64_t vocab, double label_smoothing");
  EXPECT_EQ(argument_names(weighted), "logits, labels, weight, loss, rows, vocab, label_smoothing");

  auto src = render_dispatcher(plain);
  ASSERT_TRUE(src) << src.error().what();
  EXPECT_FALSE(contains(*src, "weight")) << *src;
  EXPECT_TRUE(contains(*src, "(logits, labels, loss, rows, vocab, label_smoothing);")) << *src;
  auto wsrc = render_dispatcher(weighted);
  ASSERT_TRUE(wsrc) << wsrc.error().what();
  EXPECT_TRUE(contains(*wsrc, "rt::check_tensor(\"cross_entropy_bf16_weighted\", \"weight\", weight, {{\"vocab\", I(vocab)}})"))
      << *wsrc;

  Package pkg;
  pkg.targets = {plain, weighted};
  const std::string h = render_header(pkg);
  EXPECT_TRUE(contains(h, "//   label_smoothing: double scalar (the spec's default: 0)")) << h;
  EXPECT_TRUE(contains(h, "//   weight: in f32 [vocab]")) << h;
}

TEST(ModelOpExport, TheExampleEvaluatesBoundsAndPassesScalarsPerWorkload) {
  Package pkg;
  pkg.targets = {target("cross_entropy", "bf16"), target("cross_entropy", "bf16_weighted")};
  auto main = render_example(pkg);
  ASSERT_TRUE(main) << main.error().what();
  // "hi": "vocab - 1" on 1x7 and 131x33; the workload's smoothing (0.2) on 131x33.
  EXPECT_TRUE(contains(*main, "{\"1x7\", {1, 7}, {0}")) << *main;
  EXPECT_TRUE(contains(*main, "{\"131x33\", {131, 33}, {0.20000000000000001}")) << *main;
  EXPECT_TRUE(contains(*main, "kwbx::Gen{kwbx::Gen::int_uniform, 0, 6, 0, 0, 0, false}")) << *main;
  EXPECT_TRUE(contains(*main, "kwbx::Gen{kwbx::Gen::int_uniform, 0, 32, 0, 0, 0, false}")) << *main;
  EXPECT_TRUE(contains(*main, "const double label_smoothing = kwb_case.scalars[0];")) << *main;
  EXPECT_TRUE(contains(*main, "kwb_ref.scalars = {{\"label_smoothing\", label_smoothing}};")) << *main;
  EXPECT_TRUE(contains(*main, "kwb::cross_entropy_bf16(kwb_stage.in(logits), kwb_stage.in(labels), kwb_stage.out(loss), "
                              "rows, vocab, label_smoothing)")) << *main;
  EXPECT_TRUE(contains(*main, "kwb_stage.in(weight)")) << "the weighted variant passes its weight";
  EXPECT_EQ(main->find("kwb_ref.inputs[\"weight\"]"), main->rfind("kwb_ref.inputs[\"weight\"]")) << "only one variant has it";
}

TEST(ModelOpExport, SetOutputsAreComparedWithTheirValuesAsSets) {
  Package pkg;
  pkg.targets = {target("topk", "f32")};
  auto main = render_example(pkg);
  ASSERT_TRUE(main) << main.error().what();
  EXPECT_TRUE(contains(*main, "kwbx::compare_set(kwb_report, kwb_case.name, \"indices\", kwbx::view(indices, "
                              "kwbx::DType::i32), kwb_want_indices, \"values\", kwbx::view(values, kwbx::DType::f32), "
                              "&kwb_want_values, kwbx::view(x, kwbx::DType::f32), kwb_case.last[0], kwb_case.last[2], "
                              "kwbx::Tol{true, 0, 0});")) << *main;
  EXPECT_FALSE(contains(*main, "kwb_report.compare(kwb_case.name, \"values\"")) << "values are compared with their indices";
  EXPECT_FALSE(contains(*main, "kwb_report.compare(kwb_case.name, \"indices\"")) << *main;
  const std::string check = render_example_check_hpp();
  EXPECT_TRUE(contains(check, "inline void compare_set(Report& report")) << check;
  EXPECT_TRUE(contains(check, "enum Kind { uniform, normal, int_uniform, constant, distinct, permutation, offsets }")) << check;
}

}  // namespace
}  // namespace kwb::package
