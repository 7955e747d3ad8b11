// package::render_dispatcher: the choices the generated kwb::<function> makes at run time, as
// written into src/<function>.cpp — the CPU kernel of the exported x86-64 level only on a CPU that
// has it, else the baseline kernel or a no_kernel error that says why; device pointers to the
// CUDA kernel, whose config is picked by the element counts of the measured workloads.
#include <gtest/gtest.h>

#include <string>

#include "library_tree.hpp"
#include "package/model.hpp"
#include "temp_dir.hpp"

namespace kwb::package {
namespace {

using kwb::test::export_request;
using kwb::test::LibraryTree;
using kwb::test::small_library;
using kwb::test::TempDir;

// The dispatcher of vector_add_f32 exported from `tree` for the CPU class `cpu_class`.
std::string dispatcher(const LibraryTree& tree, const std::string& cpu_class = "cpu-x86_64-v3") {
  TempDir dir;
  tree.write(dir.path());
  ExportRequest req = export_request(dir.path(), dir / "out");
  req.cpu_device_class = cpu_class;
  auto pkg = resolve_package(req);
  if (!pkg) throw std::runtime_error(pkg.error().what());
  auto text = render_dispatcher(pkg->targets.at(0));
  if (!text) throw std::runtime_error(text.error().what());
  return *text;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RenderDispatcher, TheLevelsKernelRunsOnlyOnACpuThatHasItElseTheBaseline) {
  const std::string d = dispatcher(small_library());
  EXPECT_TRUE(contains(d, "//   cpu:  vector_add/cpu/avx2.cpp (kwb_vector_add_f32, device class cpu-x86_64-v3)")) << d;
  EXPECT_TRUE(contains(d, "//   cpu below x86-64-v3: vector_add/cpu/scalar.cpp")) << d;
  EXPECT_TRUE(contains(d, "extern \"C\" void kwb_vector_add_f32__vector_add_f32(const float* a, const float* b, "
                          "float* c, int64_t n);"))
      << d;
  EXPECT_TRUE(contains(d, "  if (rt::cpu_level() >= 3) {\n    kwb_vector_add_f32__vector_add_f32(a, b, c, n);\n"
                          "    return rt::succeed();\n  }\n"
                          "  kwb_vector_add_f32__vector_add_f32_baseline(a, b, c, n);  // the baseline kernel\n"))
      << d;
  // Every tensor is checked before any kernel runs.
  const size_t check = d.find("rt::check_tensor(\"vector_add_f32\", \"c\", c, {{\"n\", I(n)}})");
  ASSERT_NE(check, std::string::npos) << d;
  EXPECT_LT(check, d.find("rt::cpu_level()"));
}

TEST(RenderDispatcher, WithoutABaselineACpuBelowTheLevelGetsAnErrorThatSaysWhy) {
  LibraryTree tree = small_library();
  tree.dispatch.entries.erase(tree.dispatch.entries.begin());  // the "any" CPU kernel
  ASSERT_EQ(tree.dispatch.entries.front().device_class, "cpu-x86_64-v3");
  const std::string d = dispatcher(tree, "cpu-x86_64-v4");
  EXPECT_TRUE(contains(d, "if (rt::cpu_level() >= 4)")) << d;
  EXPECT_FALSE(contains(d, "__vector_add_f32_baseline")) << d;  // no baseline kernel to call
  EXPECT_TRUE(contains(d, "return rt::fail(no_kernel, \"kwb::vector_add_f32: the CPU kernel vector_add/cpu/avx512.cpp "
                          "was compiled for x86-64-v4 (device class cpu-x86_64-v4), which this CPU is not"))
      << d;
}

TEST(RenderDispatcher, AnAnyKernelIsCalledWithoutALevelCheck) {
  const std::string d = dispatcher(small_library(), "cpu-x86_64-v2");
  EXPECT_FALSE(contains(d, "rt::cpu_level()")) << d;
  EXPECT_TRUE(contains(d, "  kwb_vector_add_f32__vector_add_f32(a, b, c, n);\n  return rt::succeed();\n")) << d;
}

TEST(RenderDispatcher, DevicePointersGoToTheCudaConfigOfTheNearestMeasuredWorkload) {
  const std::string d = dispatcher(small_library());
  EXPECT_TRUE(contains(d, "//   cuda: vector_add/cuda/grid.cu (device class cuda-sm_90), configs: BLOCK=512; BLOCK=256"))
      << d;
  EXPECT_TRUE(contains(d, "constexpr double k_pick_elements[] = {16777216 /* n16M */, 1048576 /* n1M */, "
                          "268435456 /* n256M */};\nconstexpr size_t k_pick_configs[] = {0, 1, 0};"))
      << d;
  EXPECT_TRUE(contains(d, "rt::pick_config(k_pick_elements, k_pick_configs, 3, 2, 1.0 * double(n))")) << d;
  EXPECT_TRUE(contains(d, "    case 0: {  // BLOCK=512\n")) << d;
  EXPECT_TRUE(contains(d, "    case 1: {  // BLOCK=256\n")) << d;
  // The plan's expressions with the config's tunable values, as checked C++.
  EXPECT_TRUE(contains(d, "kwb_cuda_vector_add_f32_cfg1[0], {rt::ceil_div(I(n), I(256))}, {I(256)}")) << d;
  EXPECT_TRUE(contains(d, "  if (kwb_on_device) {\n    const int kwb_rc = vector_add_f32_cuda(a, b, c, n, stream);")) << d;
  // Without a CUDA kernel, device pointers are refused by name.
  LibraryTree cpu_only = small_library();
  std::erase_if(cpu_only.dispatch.entries, [](const auto& e) { return e.backend == "cuda"; });
  const std::string c = dispatcher(cpu_only);
  EXPECT_FALSE(contains(c, "k_pick_elements")) << c;
  EXPECT_TRUE(contains(c, "the tensors are in device memory and this package has no CUDA kernel for vector_add/f32")) << c;
}

// A kernel whose metadata says it needs more alignment than the spec guarantees (f32: 4 bytes)
// is called only for tensors that have it: the level's kernel falls back to the baseline, an
// "any" kernel and the CUDA kernel report no_kernel and say why (docs/export.md "Alignment").
TEST(RenderDispatcher, AKernelNeedingMoreAlignmentIsCalledOnlyForPointersThatHaveIt) {
  LibraryTree tree = small_library();
  tree.files["vector_add/cpu/avx2.json"] = R"({"flags": ["-ffast-math"], "alignment": 32})";
  const std::string d = dispatcher(tree);
  const std::string test =
      "((reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b) | reinterpret_cast<std::uintptr_t>(c)) % 32 == 0)";
  EXPECT_TRUE(contains(d, "  if (rt::cpu_level() >= 3 && " + test + ") {\n    kwb_vector_add_f32__vector_add_f32(a, b, c, n);\n"
                          "    return rt::succeed();\n  }\n"
                          "  kwb_vector_add_f32__vector_add_f32_baseline(a, b, c, n);  // the baseline kernel\n"))
      << d;
  EXPECT_FALSE(contains(d, "% 32 == 0)))\n      return rt::fail")) << d;  // the CUDA kernel needs nothing more

  tree.files["vector_add/cpu/scalar.json"] = R"({"alignment": 16})";
  tree.files["vector_add/cuda/grid.json"] = R"({"alignment": 16})";
  const std::string any = dispatcher(tree, "cpu-x86_64-v2");
  const std::string test16 =
      "((reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b) | reinterpret_cast<std::uintptr_t>(c)) % 16 == 0)";
  EXPECT_TRUE(contains(any, "  if (" + test16 + ") {\n    kwb_vector_add_f32__vector_add_f32(a, b, c, n);\n")) << any;
  EXPECT_TRUE(contains(any, "return rt::fail(no_kernel, \"kwb::vector_add_f32: the kernel vector_add/cpu/scalar.cpp needs "
                            "every tensor aligned to 16 bytes")) << any;
  EXPECT_TRUE(contains(any, "  if (kwb_on_device) {\n    if (!" + test16 + ")\n      return rt::fail(no_kernel, "
                            "\"kwb::vector_add_f32: the kernel vector_add/cuda/grid.cu needs every tensor aligned to 16 bytes"))
      << any;
  // Alignment the spec already guarantees costs no test.
  tree.files["vector_add/cpu/scalar.json"] = R"({"alignment": 4})";
  EXPECT_FALSE(contains(dispatcher(tree, "cpu-x86_64-v2"), "% 4 == 0")) << "f32 tensors are 4-byte aligned already";
}

TEST(RenderDispatcher, AnAlignmentThatIsNotAPowerOfTwoNamesTheFileAndField) {
  LibraryTree tree = small_library();
  tree.files["vector_add/cpu/avx2.json"] = R"({"alignment": 12})";
  try {
    dispatcher(tree);
    FAIL() << "alignment 12 was taken";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "vector_add/cpu/avx2.json: alignment")) << what;
    EXPECT_TRUE(contains(what, "expected a power of two")) << what;
  }
}

}  // namespace
}  // namespace kwb::package
