#pragma once
// Small specs for the speccheck tests, and a reference written as a C++ lambda (a unit test of
// the check logic; `kwb spec check` reaches real references through eval::ReferenceOpener).
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "eval/reference.hpp"
#include "spec/loader.hpp"
#include "speccheck/problem.hpp"

namespace kwb::speccheck::test {

// y[n] from x[n]: one param, one variant; `tolerance` and `y_dtype` replaceable.
inline std::string vector_spec(const std::string& tolerance = R"({"atol": 1e-6, "rtol": 1e-5})",
                               const std::string& y_dtype = "f32", const std::string& extra_tensor_y = "",
                               const std::string& distributions =
                                   R"([{"name": "normal", "tensors": {"x": {"kind": "normal", "mean": 0, "stddev": 1}}}])",
                               const std::string& top = "") {
  return R"({"op": "vec", "version": 1, "summary": "y from x", "params": ["n"],)" + top + R"(
    "tensors": [{"name": "x", "role": "in", "shape": ["n"]},
                {"name": "y", "role": "out", "shape": ["n"])" + extra_tensor_y + R"(}],
    "variants": [{"name": "f32", "entry": "kwb_vec_f32", "dtypes": {"x": "f32", "y": ")" + y_dtype + R"("},
                  "tolerance": {"y": )" + tolerance + R"(}, "roofline": {"bytes": "8*n", "flops": "n"}}],
    "distributions": )" + distributions + R"(,
    "workloads": {"test": [{"name": "n1", "params": {"n": 1}}, {"name": "n7", "params": {"n": 7}},
                           {"name": "n33", "params": {"n": 33}}, {"name": "n1000", "params": {"n": 1000}}],
                  "bench": [{"name": "n1M", "params": {"n": 1048576}}]}})";
}

inline core::Spec parse(const std::string& text) {
  auto spec = spec::parse_spec(text, "vec/spec.json");
  EXPECT_TRUE(spec.has_value()) << (spec ? "" : spec.error().what());
  return spec ? *spec : core::Spec{};
}

class LambdaReference : public eval::Reference {
 public:
  using Fn = std::function<void(const core::ReferenceArgs&)>;
  explicit LambdaReference(Fn fn) : m_fn(std::move(fn)) {}
  util::Result<void> compute(const core::ReferenceArgs& args) override {
    ++calls;
    m_fn(args);
    return {};
  }
  int calls = 0;

 private:
  Fn m_fn;
};

// y = x, as doubles.
inline void copy_x(const core::ReferenceArgs& a) {
  const float* x = a.in<float>("x");
  double* y = a.out("y");
  for (int64_t i = 0; i < a.param("n"); ++i) y[i] = x[i];
}

inline std::string dump(const std::vector<Problem>& ps) {
  std::string s;
  for (const auto& p : ps) s += format_problem(p) + "\n";
  return s;
}

// The problems whose field is `field` and whose message contains `fragment`.
inline size_t matching(const std::vector<Problem>& ps, Severity sev, const std::string& field, const std::string& fragment) {
  size_t n = 0;
  for (const auto& p : ps) n += p.severity == sev && p.field == field && p.message.find(fragment) != std::string::npos;
  return n;
}

}  // namespace kwb::speccheck::test
