// package::resolve_package on a small library tree in a temporary folder: which dispatch entries
// an export takes for the device classes asked (the CPU incumbent of the class with the "any"
// kernel as its fallback below its x86-64 level, CUDA configs and which workload picks which),
// what it leaves out and why, and errors that name the entry and field.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "library_tree.hpp"
#include "package/model.hpp"
#include "temp_dir.hpp"

namespace kwb::package {
namespace {

using kwb::test::export_request;
using kwb::test::LibraryTree;
using kwb::test::small_library;
using kwb::test::TempDir;

util::Result<Package> resolve(const LibraryTree& tree, const std::function<void(ExportRequest&)>& edit = {}) {
  TempDir dir;
  tree.write(dir.path());
  ExportRequest req = export_request(dir.path(), dir / "out");
  if (edit) edit(req);
  return resolve_package(req);
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST(ResolvePackage, TakesTheClassesIncumbentWithTheAnyKernelAsItsFallback) {
  auto pkg = resolve(small_library());
  ASSERT_TRUE(pkg) << pkg.error().what();
  ASSERT_EQ(pkg->targets.size(), 1u);
  const Target& t = pkg->targets[0];
  EXPECT_EQ(t.function, "vector_add_f32");
  ASSERT_TRUE(t.cpu);
  EXPECT_EQ(t.cpu->path, "vector_add/cpu/avx2.cpp");
  EXPECT_EQ(t.cpu->level, 3);
  EXPECT_EQ(t.cpu->unit, "cpu/vector_add_f32.cpp");
  EXPECT_EQ(t.cpu->symbol, "kwb_vector_add_f32__vector_add_f32");
  EXPECT_EQ(t.cpu->flags, std::vector<std::string>{"-ffast-math"});  // the target choice is the package's
  ASSERT_TRUE(t.cpu_baseline);
  EXPECT_EQ(t.cpu_baseline->path, "vector_add/cpu/scalar.cpp");
  EXPECT_EQ(t.cpu_baseline->level, 0);
  EXPECT_EQ(t.cpu_baseline->unit, "cpu/vector_add_f32_baseline.cpp");
  EXPECT_EQ(t.cpu_baseline->symbol, "kwb_vector_add_f32__vector_add_f32_baseline");
  EXPECT_EQ(t.cpu_baseline->flags, (std::vector<std::string>{"-O2", "-funroll-loops"}));
  EXPECT_EQ(pkg->cpu_device_class, "cpu-x86_64-v3");
  EXPECT_TRUE(pkg->kernel_sources.contains("vector_add/cpu/avx2.cpp"));
  EXPECT_FALSE(pkg->kernel_sources.contains("vector_add/cpu/avx512.cpp"));
  ASSERT_TRUE(pkg->references.contains("vector_add"));
  EXPECT_NE(pkg->references.at("vector_add").find("vector_add"), std::string::npos);
}

TEST(ResolvePackage, SaysWhatItLeavesOutAndWhy) {
  auto pkg = resolve(small_library());
  ASSERT_TRUE(pkg) << pkg.error().what();
  EXPECT_EQ(pkg->skipped.size(), 2u);
  EXPECT_TRUE(has(pkg->skipped, "vector_add/f32/cpu/cpu-x86_64-v4: another device class (exporting cpu-x86_64-v3)"));
  EXPECT_TRUE(has(pkg->skipped, "vector_add/f32/cuda-launcher/any: the cuda-launcher form is not exported yet"));
}

TEST(ResolvePackage, AnotherCpuClassTakesItsOwnIncumbent) {
  auto v4 = resolve(small_library(), [](ExportRequest& r) { r.cpu_device_class = "cpu-x86_64-v4"; });
  ASSERT_TRUE(v4) << v4.error().what();
  EXPECT_EQ(v4->targets[0].cpu->path, "vector_add/cpu/avx512.cpp");
  EXPECT_EQ(v4->targets[0].cpu->level, 4);
  ASSERT_TRUE(v4->targets[0].cpu_baseline);
  EXPECT_EQ(v4->targets[0].cpu_baseline->path, "vector_add/cpu/scalar.cpp");
  // A class without an incumbent of its own falls back to "any", which needs no fallback.
  auto v2 = resolve(small_library(), [](ExportRequest& r) { r.cpu_device_class = "cpu-x86_64-v2"; });
  ASSERT_TRUE(v2) << v2.error().what();
  EXPECT_EQ(v2->targets[0].cpu->path, "vector_add/cpu/scalar.cpp");
  EXPECT_EQ(v2->targets[0].cpu->level, 0);
  EXPECT_FALSE(v2->targets[0].cpu_baseline);
  EXPECT_TRUE(has(v2->skipped, "vector_add/f32/cpu/cpu-x86_64-v3: another device class (exporting cpu-x86_64-v2)"));
}

TEST(ResolvePackage, CudaConfigsAreTheDistinctRecordedOnesAndEachWorkloadPicksItsOwn) {
  auto pkg = resolve(small_library());
  ASSERT_TRUE(pkg) << pkg.error().what();
  ASSERT_TRUE(pkg->targets[0].cuda);
  const CudaKernel& k = *pkg->targets[0].cuda;
  EXPECT_EQ(k.path, "vector_add/cuda/grid.cu");
  ASSERT_EQ(k.configs.size(), 2u);  // n16M and n256M share BLOCK=512
  EXPECT_EQ(k.configs[0].label, "BLOCK=512");
  EXPECT_EQ(k.configs[0].file, "cuda/vector_add_f32_cfg0.cu");
  EXPECT_EQ(k.configs[1].label, "BLOCK=256");
  EXPECT_EQ(k.configs[1].table, "kwb_cuda_vector_add_f32_cfg1");
  ASSERT_EQ(k.picks.size(), 3u);
  EXPECT_EQ(k.picks[0].workload, "n16M");
  EXPECT_EQ(k.picks[0].elements, 16777216.0);  // the spec's bench workload's params
  EXPECT_EQ(k.picks[0].config, 0u);
  EXPECT_EQ(k.picks[1].workload, "n1M");
  EXPECT_EQ(k.picks[1].config, 1u);
  EXPECT_EQ(k.picks[2].config, 0u);
  // Without recorded configs: the first value of every tunable, for every call.
  LibraryTree tree = small_library();
  tree.entry("vector_add/cuda/grid.cu").configs.clear();
  auto first = resolve(tree);
  ASSERT_TRUE(first) << first.error().what();
  ASSERT_EQ(first->targets[0].cuda->configs.size(), 1u);
  EXPECT_EQ(first->targets[0].cuda->configs[0].label, "BLOCK=128");
  EXPECT_TRUE(first->targets[0].cuda->picks.empty());
}

TEST(ResolvePackage, BackendsAndOpsNarrowTheExport) {
  auto cpu_only = resolve(small_library(), [](ExportRequest& r) { r.backends = {"cpu"}; });
  ASSERT_TRUE(cpu_only) << cpu_only.error().what();
  EXPECT_FALSE(cpu_only->targets[0].cuda);
  EXPECT_FALSE(cpu_only->kernel_sources.contains("vector_add/cuda/grid.cu"));
  EXPECT_EQ(cpu_only->skipped.size(), 1u);  // the v4 kernel; other backends are not mentioned
  auto other_op = resolve(small_library(), [](ExportRequest& r) { r.ops = {"softmax"}; });
  ASSERT_FALSE(other_op);
  EXPECT_EQ(other_op.error().what(), "ops: 'softmax' has no exported entry in dispatch.json");
  auto bad_backend = resolve(small_library(), [](ExportRequest& r) { r.backends = {"cpu", "fpga"}; });
  ASSERT_FALSE(bad_backend);
  EXPECT_EQ(bad_backend.error().what(), "backends: 'fpga' is not one of cpu, cuda, cuda-launcher");
}

TEST(ResolvePackage, ErrorsNameTheEntryAndTheField) {
  LibraryTree missing = small_library();
  missing.files.erase("vector_add/cpu/avx2.cpp");
  auto m = resolve(missing);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().what().find("dispatch.json: vector_add/f32/cpu/cpu-x86_64-v3: kernel 'vector_add/cpu/avx2.cpp': "
                                  "no such file in the library"),
            std::string::npos)
      << m.error().what();

  LibraryTree off_list = small_library();
  off_list.entry("vector_add/cuda/grid.cu").configs[1].tune["BLOCK"] = 1000;
  auto o = resolve(off_list);
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().what(),
            "dispatch.json: vector_add/f32/cuda/cuda-sm_90: configs[1].tune.BLOCK: 1000 is not one of the values of "
            "its kwb:tune line (128, 256, 512)");

  LibraryTree renamed = small_library();
  renamed.entry("vector_add/cpu/scalar.cpp").entry = "kwb_vector_add_f32_v2";
  auto r = resolve(renamed);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().what(), "dispatch.json: vector_add/f32/cpu/any: entry: 'kwb_vector_add_f32_v2' does not appear in "
                              "vector_add/cpu/scalar.cpp");

  LibraryTree unknown = small_library();
  auto e = unknown.entry("vector_add/cpu/scalar.cpp");
  e.op = "relu";
  unknown.dispatch.upsert(e);
  auto u = resolve(unknown);
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().what(), "dispatch.json: relu/f32/cpu/any: op: 'relu' is not in the spec catalog");

  auto no_catalog = resolve(small_library(), [](ExportRequest& req) { req.catalog = nullptr; });
  ASSERT_FALSE(no_catalog);
  EXPECT_EQ(no_catalog.error().what(), "export: no spec catalog given");
}

}  // namespace
}  // namespace kwb::package
