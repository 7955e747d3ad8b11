// Shape regions in an exported package (docs/export.md "Dispatch rules", docs/library.md "Shape
// regions"): each regional CPU kernel is its own unit, tried before the whole-space kernel where
// the call's params lie in its region (and the CPU has its level); overlapping regions of one
// class are refused when the library is read.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "library_tree.hpp"
#include "package/model.hpp"
#include "temp_dir.hpp"

namespace kwb::package {
namespace {

using kwb::test::cpu_kernel;
using kwb::test::export_request;
using kwb::test::LibraryTree;
using kwb::test::small_library;
using kwb::test::TempDir;

library::Region region_of(const char* text) {
  auto r = library::parse_region(nlohmann::json::parse(text), "region");
  if (!r) throw std::runtime_error(r.error().what());
  return *r;
}

// small_library() without its whole-space v3 kernel, with a v3 kernel for n <= 4096 instead.
LibraryTree regional_library() {
  LibraryTree t = small_library();
  std::erase_if(t.dispatch.entries, [](const library::DispatchEntry& e) { return e.kernel == "vector_add/cpu/avx2.cpp"; });
  t.files["vector_add/cpu/tiny.cpp"] = cpu_kernel("small n, on an AVX2 machine");
  library::DispatchEntry tiny{"vector_add", "f32", "cpu", "cpu-x86_64-v3", "vector_add/cpu/tiny.cpp",
                              "kwb_vector_add_f32", "", 0, region_of(R"({"n": [1, 4096]})"), {}};
  t.dispatch.upsert(tiny);
  return t;
}

TEST(RenderRegions, ARegionsKernelIsCalledForItsParamsBeforeTheWholeSpaceKernel) {
  TempDir dir;
  regional_library().write(dir.path());
  ExportRequest req = export_request(dir.path(), dir / "out");
  req.backends = {"cpu"};
  auto pkg = resolve_package(req);
  ASSERT_TRUE(pkg) << pkg.error().what();
  const Target& t = pkg->targets.at(0);
  ASSERT_EQ(t.cpu_regions.size(), 1u);
  EXPECT_EQ(t.cpu_regions[0].kernel.unit, "cpu/vector_add_f32_r0.cpp");
  ASSERT_TRUE(t.cpu);
  EXPECT_EQ(t.cpu->path, "vector_add/cpu/scalar.cpp");  // "any": the params outside the region
  auto d = render_dispatcher(t);
  ASSERT_TRUE(d) << d.error().what();
  const std::string call = "  if (n >= 1LL && n <= 4096LL && rt::cpu_level() >= 3) {  // n in [1, 4096]: "
                           "vector_add/cpu/tiny.cpp\n    kwb_vector_add_f32__vector_add_f32_r0(a, b, c, n);\n"
                           "    return rt::succeed();\n  }\n";
  const size_t at = d->find(call);
  ASSERT_NE(at, std::string::npos) << *d;
  EXPECT_LT(at, d->find("  kwb_vector_add_f32__vector_add_f32(a, b, c, n);")) << *d;
  EXPECT_NE(d->find("//   cpu for n in [1, 4096]: vector_add/cpu/tiny.cpp"), std::string::npos) << *d;
  auto files = render_package(*pkg);
  ASSERT_TRUE(files) << files.error().what();
  EXPECT_TRUE(files->contains("cpu/vector_add_f32_r0.cpp"));
  EXPECT_NE(files->at("CMakeLists.txt").find("kwb_cpu_kernel(cpu/vector_add_f32_r0.cpp 3)"), std::string::npos)
      << files->at("CMakeLists.txt");
  auto manifest = nlohmann::json::parse(files->at("kwb-package.json"));
  EXPECT_EQ(manifest["functions"][0]["cpu_regions"][0]["region"].dump(), R"({"n":[1,4096]})") << manifest.dump(2);
}

TEST(RenderRegions, OverlappingRegionsOfOneClassAreRefusedNamingTheField) {
  LibraryTree t = small_library();  // its whole-space v3 kernel overlaps any region of v3
  t.files["vector_add/cpu/tiny.cpp"] = cpu_kernel("small n");
  t.dispatch.entries.push_back({"vector_add", "f32", "cpu", "cpu-x86_64-v3", "vector_add/cpu/tiny.cpp",
                                "kwb_vector_add_f32", "", 0, region_of(R"({"n": [1, 4096]})"), {}});
  TempDir dir;
  t.write(dir.path());
  auto pkg = resolve_package(export_request(dir.path(), dir / "out"));
  ASSERT_FALSE(pkg);
  EXPECT_NE(pkg.error().what().find(".region"), std::string::npos) << pkg.error().what();
  EXPECT_NE(pkg.error().what().find("must not overlap"), std::string::npos) << pkg.error().what();
}

}  // namespace
}  // namespace kwb::package
