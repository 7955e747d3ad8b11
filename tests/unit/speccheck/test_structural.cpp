// Memory limits per device class, edge coverage and roofline positivity, on loaded specs.
#include <gtest/gtest.h>

#include "spec_text.hpp"
#include "speccheck/structural.hpp"

namespace kwb::speccheck::test {
namespace {

std::vector<Problem> structural(const core::Spec& spec, DeviceLimits limits = DeviceLimits::defaults()) {
  Findings out("vec/spec.json", "vec/reference.cpp");
  check_memory(spec, limits, out);
  check_roofline(spec, out);
  check_edge_coverage(spec, out);
  return out.problems();
}

std::string with_workloads(const std::string& test, const std::string& bench, const std::string& roofline =
                                                                                    R"({"bytes": "8*n", "flops": "n"})") {
  return R"({"op": "vec", "version": 1, "summary": "s", "params": ["n"],
    "tensors": [{"name": "x", "role": "in", "shape": ["n"]}, {"name": "y", "role": "out", "shape": ["n"]}],
    "variants": [{"name": "f32", "entry": "e", "dtypes": {"x": "f32", "y": "f32"},
                  "tolerance": {"y": {"exact": true}}, "roofline": )" + roofline + R"(}],
    "distributions": [{"name": "d", "tensors": {"x": {"kind": "normal", "mean": 0, "stddev": 1}}}],
    "workloads": {"test": )" + test + R"(, "bench": )" + bench + "}}";
}

const std::string k_edges = R"([{"name": "a", "params": {"n": 1}}, {"name": "b", "params": {"n": 33}},
                               {"name": "c", "params": {"n": 131}}])";

TEST(SpecCheckStructural, ACoveredSpecHasNoProblems) {
  auto spec = parse(with_workloads(k_edges, R"([{"name": "big", "params": {"n": 1048576}}])"));
  auto problems = structural(spec);
  EXPECT_TRUE(problems.empty()) << dump(problems);
}

TEST(SpecCheckStructural, MissingEdgeSizesAreWarningsNamingTheParam) {
  auto spec = parse(with_workloads(R"([{"name": "a", "params": {"n": 64}}, {"name": "b", "params": {"n": 256}}])",
                                   R"([{"name": "big", "params": {"n": 1024}}])"));
  auto problems = structural(spec);
  EXPECT_EQ(problems.size(), 4u) << dump(problems);
  EXPECT_EQ(matching(problems, Severity::warning, "workloads.test", "param 'n' is never tested at an edge size: no test workload has n = 1"), 1u);
  EXPECT_EQ(matching(problems, Severity::warning, "workloads.test", "a prime n"), 1u);
  EXPECT_EQ(matching(problems, Severity::warning, "workloads.test", "n > 32 and not a multiple of 32"), 1u);
  EXPECT_EQ(matching(problems, Severity::warning, "workloads.test", "n > 128 and not a multiple of 128"), 1u);
}

TEST(SpecCheckStructural, AWorkloadOverItsDeviceClassIsAnError) {
  DeviceLimits limits{1 << 20, 1 << 30};  // 1 MiB cpu, 1 GiB cuda
  auto spec = parse(with_workloads(k_edges, R"([{"name": "small", "params": {"n": 1000}},
      {"name": "cpu_big", "params": {"n": 1048576}},
      {"name": "gpu_big", "params": {"n": 268435456}, "backends": ["cuda"]}])"));
  auto problems = structural(spec, limits);
  ASSERT_EQ(problems.size(), 2u) << dump(problems);
  // n = 2^20 on every backend: 8 MiB, over the cpu class (with a hint) but within the cuda class.
  EXPECT_EQ(matching(problems, Severity::error, "workloads.bench[1]", "'cpu_big', variant f32: its tensors take 8.00 MiB"), 1u);
  EXPECT_EQ(matching(problems, Severity::error, "workloads.bench[1]", "more than the cpu device class holds (1.00 MiB; --cpu-memory changes it)"), 1u);
  // n = 2^28 on cuda only: 2 GiB, over the cuda class only.
  EXPECT_EQ(matching(problems, Severity::error, "workloads.bench[2]", "more than the cuda device class holds (1.00 GiB"), 1u);
  // The test workload n = 131 fits; 'small' (8000 B) too.
  EXPECT_EQ(matching(problems, Severity::error, "workloads.bench[0]", ""), 0u);
}

TEST(SpecCheckStructural, AZeroRooflineIsAnErrorOncePerField) {
  auto spec = parse(with_workloads(k_edges, R"([{"name": "big", "params": {"n": 1024}}])",
                                   R"({"bytes": "8*n - 8*n", "flops": "n - 1"})"));
  auto problems = structural(spec);
  ASSERT_EQ(problems.size(), 1u) << dump(problems);  // flops n - 1 is 0 at n = 1: allowed (>= 0)
  EXPECT_EQ(problems[0].field, "variants[0].roofline.bytes");
  EXPECT_NE(problems[0].message.find("\"8*n - 8*n\" is 0 on workloads.test[0] 'a' (and on 3 more workloads)"),
            std::string::npos)
      << problems[0].message;
}

TEST(SpecCheckStructural, SizesParseWithUnits) {
  EXPECT_EQ(parse_size("64GiB").value(), 64ull << 30);
  EXPECT_EQ(parse_size("512mib").value(), 512ull << 20);
  EXPECT_EQ(parse_size("2GB").value(), 2000000000ull);
  EXPECT_EQ(parse_size("1000").value(), 1000ull);
  EXPECT_FALSE(parse_size("GiB").has_value());
  EXPECT_FALSE(parse_size("12 parsecs").has_value());
  EXPECT_FALSE(parse_size("99999999999TiB").has_value());
  EXPECT_EQ(format_size(1536.0 * (1 << 20)), "1.50 GiB");
  EXPECT_GT(DeviceLimits::defaults().cpu_bytes, 0u);
  EXPECT_EQ(DeviceLimits::defaults().cuda_bytes, 139ull << 30);
}

}  // namespace
}  // namespace kwb::speccheck::test
