// Cache limits and the free-space reserve (store::Janitor).
#include <gtest/gtest.h>

#include <fstream>

#include "store/janitor.hpp"
#include "temp_dir.hpp"
#include "tmpfs_mount.hpp"

namespace kwb::store {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, size_t bytes, int age_s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << std::string(bytes, 'c');
  fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::seconds(age_s));
}

TEST(Janitor, EachCacheIsKeptUnderItsLimitOldestFirst) {
  test::TempDir ws;
  auto cfg = workspace_janitor_config(ws.path(), 250 << 10, 0);
  Janitor j(cfg);
  write(ws / "cache/cpu/aa/old", 100 << 10, 300);
  write(ws / "cache/cpu/bb/mid", 100 << 10, 200);
  write(ws / "cache/cpu/cc/new", 100 << 10, 100);
  write(ws / "cache/analysis/clang19-x/cpu.pch", 200 << 10, 300);
  write(ws / "cache/analysis/clang19-x/cpu.hpp", 100 << 10, 400);  // not an entry: stays
  write(ws / "cache/analysis/clang19-x/cpu.pch.tmp4242", 10, 3600);  // left by a killed process
  write(ws / "cache/cpu/dd/entry.tmp.77.ab", 10, 1);                 // being written now
  auto r = j.sweep();
  EXPECT_FALSE(fs::exists(ws / "cache/analysis/clang19-x/cpu.pch.tmp4242"));
  EXPECT_TRUE(fs::exists(ws / "cache/cpu/dd/entry.tmp.77.ab"));
  EXPECT_FALSE(fs::exists(ws / "cache/cpu/aa/old"));
  EXPECT_TRUE(fs::exists(ws / "cache/cpu/bb/mid"));
  EXPECT_TRUE(fs::exists(ws / "cache/cpu/cc/new"));
  EXPECT_FALSE(fs::exists(ws / "cache/analysis/clang19-x/cpu.pch"));
  EXPECT_TRUE(fs::exists(ws / "cache/analysis/clang19-x/cpu.hpp"));
  EXPECT_EQ(r.evicted_files, 3);
}

TEST(Janitor, BelowTheReserveCachesAreEvictedBeforeTheStoreStarves) {
  test::TmpfsMount disk(8 << 20);
  TMPFS_OR_SKIP(disk);
  auto cfg = workspace_janitor_config(disk.path(), 1ull << 30, 2 << 20);
  Janitor j(cfg);
  write(disk / "cache/nvcc/aa/one", 1 << 20, 300);
  write(disk / "cache/cubin/bb/two", 1 << 20, 200);
  write(disk / "cache/cpu/cc/three", 1 << 20, 100);
  test::TmpfsMount::fill(disk / "kwb.db-ballast");
  fs::resize_file(disk / "kwb.db-ballast", fs::file_size(disk / "kwb.db-ballast") - (512 << 10));
  auto r = j.sweep();
  ASSERT_TRUE(r.free_bytes);
  EXPECT_GE(*r.free_bytes, uint64_t(2 << 20)) << "the reserve was not restored";
  EXPECT_FALSE(r.low_space());
  EXPECT_FALSE(fs::exists(disk / "cache/nvcc/aa/one"));  // oldest first, across caches
  EXPECT_TRUE(fs::exists(disk / "cache/cpu/cc/three"));
  // Nothing left to evict: still low, and said so.
  test::TmpfsMount::fill(disk / "more-ballast");
  auto low = j.sweep();
  EXPECT_TRUE(low.low_space());
}

}  // namespace
}  // namespace kwb::store
