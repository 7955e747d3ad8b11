// package::write_package from a small library tree in a temporary folder: the files of the
// package, written whole into place (nothing staged left beside it), an out folder that must be
// new or a previous export, a replaced export that keeps the user's own folders, and a failed
// export that writes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "library_tree.hpp"
#include "temp_dir.hpp"

namespace kwb::package {
namespace {

namespace fs = std::filesystem;
using kwb::test::export_request;
using kwb::test::LibraryTree;
using kwb::test::small_library;
using kwb::test::TempDir;

std::string read(const fs::path& p) {
  auto t = util::read_file(p);
  return t ? *t : "<unreadable " + p.string() + ">";
}

// Every regular file under `dir`, relative to it.
std::set<std::string> files_under(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).string());
  return out;
}

// What else than `keep` the folder holds (staging and old-export folders left behind).
std::vector<std::string> others_in(const fs::path& dir, const std::set<std::string>& keep) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (!keep.contains(e.path().filename().string())) out.push_back(e.path().filename().string());
  return out;
}

TEST(WritePackage, WritesEveryFileOfThePackageAndReportsThem) {
  TempDir dir;
  small_library().write(dir / "library");
  auto report = write_package(export_request(dir / "library", dir / "pkg"));
  ASSERT_TRUE(report) << report.error().what();
  EXPECT_EQ(report->out_dir, dir / "pkg");
  const std::set<std::string> on_disk = files_under(dir / "pkg");
  EXPECT_EQ(on_disk, std::set<std::string>(report->files.begin(), report->files.end()));
  for (const char* f : {"CMakeLists.txt", "README.md", "kwb-package.json", "dispatch.json", "include/kwb/kernels.hpp",
                        "src/runtime.hpp", "src/runtime.cpp", "src/vector_add_f32.cpp", "cpu/vector_add_f32.cpp",
                        "cpu/vector_add_f32_baseline.cpp", "cuda/vector_add_f32_cfg0.cu", "cuda/vector_add_f32_cfg1.cu",
                        "kernels/vector_add/cpu/avx2.cpp", "kernels/vector_add/cpu/scalar.cpp",
                        "kernels/vector_add/cuda/grid.cu", "example/main.cpp", "example/check.hpp",
                        "reference/vector_add.cpp", "cmake/kwbConfig.cmake.in"})
    EXPECT_TRUE(on_disk.contains(f)) << f;
  // Kernels the export did not take are not copied.
  EXPECT_FALSE(on_disk.contains("kernels/vector_add/cpu/avx512.cpp"));
  EXPECT_FALSE(on_disk.contains("kernels/vector_add/cuda-launcher/streamed.cu"));
  // The library's files verbatim; the spec's reference for the example.
  EXPECT_EQ(read(dir / "pkg/kernels/vector_add/cpu/avx2.cpp"), read(dir / "library/vector_add/cpu/avx2.cpp"));
  EXPECT_EQ(read(dir / "pkg/dispatch.json"), read(dir / "library/dispatch.json"));
  EXPECT_EQ(read(dir / "pkg/reference/vector_add.cpp"), read(kwb::test::specs_dir() / "vector_add/reference.cpp"));
  // The CPU unit renames the library's entry so that a kernel and its baseline link side by side.
  const std::string unit = read(dir / "pkg/cpu/vector_add_f32_baseline.cpp");
  EXPECT_NE(unit.find("#define kwb_vector_add_f32 kwb_vector_add_f32__vector_add_f32_baseline"), std::string::npos) << unit;
  EXPECT_NE(unit.find("#include \"../kernels/vector_add/cpu/scalar.cpp\""), std::string::npos) << unit;
  auto manifest = nlohmann::json::parse(read(dir / "pkg/kwb-package.json"), nullptr, false);
  EXPECT_TRUE(manifest.is_object()) << read(dir / "pkg/kwb-package.json");
  ASSERT_EQ(report->variants.size(), 1u);
  EXPECT_EQ(report->variants[0].function, "vector_add_f32");
  EXPECT_EQ(report->variants[0].cpu_kernel, "vector_add/cpu/avx2.cpp");
  EXPECT_EQ(report->variants[0].cuda_kernel, "vector_add/cuda/grid.cu");
  EXPECT_EQ(report->variants[0].cuda_configs, 2u);
  EXPECT_EQ(report->skipped.size(), 2u);
  EXPECT_TRUE(others_in(dir.path(), {"library", "pkg"}).empty());  // nothing staged left beside it
}

TEST(WritePackage, RefusesAFolderThatHoldsSomethingElse) {
  TempDir dir;
  small_library().write(dir / "library");
  ASSERT_TRUE(util::write_file_atomic(dir / "pkg/notes.txt", "mine"));
  for (bool replace : {false, true}) {
    auto req = export_request(dir / "library", dir / "pkg");
    req.replace = replace;
    auto r = write_package(req);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().what().find(replace ? "holds no previous export (kwb-package.json)" : "is not empty"),
              std::string::npos)
        << r.error().what();
  }
  EXPECT_EQ(files_under(dir / "pkg"), std::set<std::string>{"notes.txt"});  // untouched
  EXPECT_TRUE(others_in(dir.path(), {"library", "pkg"}).empty());
}

TEST(WritePackage, ReplacingAnExportKeepsTheUsersFoldersAndDropsWhatIsNoLongerExported) {
  TempDir dir;
  LibraryTree tree = small_library();
  tree.write(dir / "library");
  ASSERT_TRUE(write_package(export_request(dir / "library", dir / "pkg")));
  ASSERT_TRUE(util::write_file_atomic(dir / "pkg/build/CMakeCache.txt", "the user's build"));
  // The library loses its CUDA kernel; the export is made again over the previous one.
  std::erase_if(tree.dispatch.entries, [](const auto& e) { return e.backend == "cuda"; });
  tree.write(dir / "library");
  auto req = export_request(dir / "library", dir / "pkg");
  req.replace = true;
  auto again = write_package(req);
  ASSERT_TRUE(again) << again.error().what();
  EXPECT_EQ(read(dir / "pkg/build/CMakeCache.txt"), "the user's build");
  EXPECT_FALSE(fs::exists(dir / "pkg/cuda"));
  EXPECT_FALSE(fs::exists(dir / "pkg/kernels/vector_add/cuda/grid.cu"));
  EXPECT_TRUE(fs::exists(dir / "pkg/cpu/vector_add_f32.cpp"));
  EXPECT_TRUE(others_in(dir.path(), {"library", "pkg"}).empty());
}

TEST(WritePackage, AFailedExportWritesNothing) {
  TempDir dir;
  LibraryTree tree = small_library();
  tree.files.erase("vector_add/cuda/grid.cu");
  tree.write(dir / "library");
  auto r = write_package(export_request(dir / "library", dir / "pkg"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().what().find("kernel 'vector_add/cuda/grid.cu': no such file in the library"), std::string::npos)
      << r.error().what();
  EXPECT_FALSE(fs::exists(dir / "pkg"));
  EXPECT_TRUE(others_in(dir.path(), {"library"}).empty());
}

}  // namespace
}  // namespace kwb::package
