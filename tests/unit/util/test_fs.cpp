#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "temp_dir.hpp"
#include "util/fs.hpp"

namespace kwb::util {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

void write_raw(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary);
  out << data;
}

size_t entries(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(ReadFile, ReturnsContentIncludingNulBytes) {
  TempDir dir;
  const std::string data("a\0b\nc", 5);
  write_raw(dir / "f.bin", data);
  auto r = read_file(dir / "f.bin");
  ASSERT_TRUE(r.has_value()) << r.error().what();
  EXPECT_EQ(*r, data);
}

TEST(ReadFile, MissingFileErrorNamesThePath) {
  TempDir dir;
  const fs::path missing = dir / "no-such-file.json";
  auto r = read_file(missing);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().where, missing.string());
  EXPECT_NE(r.error().what().find(missing.string()), std::string::npos);
  EXPECT_NE(r.error().message.find("No such file"), std::string::npos) << r.error().message;
}

// A directory is not a readable file: it must not come back as an empty "file".
TEST(ReadFile, DirectoryIsAnErrorNamingThePath) {
  TempDir dir;
  auto r = read_file(dir.path());
  ASSERT_FALSE(r.has_value()) << "read_file of a directory returned " << r->size() << " bytes";
  EXPECT_NE(r.error().what().find(dir.path().string()), std::string::npos);
}

TEST(ReadFileNofollow, ReadsARegularFile) {
  TempDir dir;
  write_raw(dir / "out.bin", "hello");
  auto r = read_file_nofollow(dir / "out.bin", 1024);
  ASSERT_TRUE(r.has_value()) << r.error().what();
  EXPECT_EQ(*r, "hello");
}

TEST(ReadFileNofollow, RefusesASymlink) {
  TempDir dir;
  write_raw(dir / "secret", "do not read");
  fs::create_symlink(dir / "secret", dir / "link");
  auto r = read_file_nofollow(dir / "link", 1024);
  ASSERT_FALSE(r.has_value()) << "followed the symlink and read: " << *r;
  EXPECT_EQ(r.error().where, (dir / "link").string());
  // The target itself is readable: only the link is refused.
  EXPECT_TRUE(read_file_nofollow(dir / "secret", 1024).has_value());
}

TEST(ReadFileNofollow, RefusesADanglingSymlink) {
  TempDir dir;
  fs::create_symlink(dir / "nowhere", dir / "link");
  auto r = read_file_nofollow(dir / "link", 1024);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().what().find("link"), std::string::npos);
}

TEST(ReadFileNofollow, EnforcesMaxBytes) {
  TempDir dir;
  write_raw(dir / "f", std::string(100, 'x'));
  auto exact = read_file_nofollow(dir / "f", 100);
  ASSERT_TRUE(exact.has_value()) << exact.error().what();
  EXPECT_EQ(exact->size(), 100u);

  auto over = read_file_nofollow(dir / "f", 99);
  ASSERT_FALSE(over.has_value());
  EXPECT_EQ(over.error().where, (dir / "f").string());
  EXPECT_NE(over.error().message.find("99"), std::string::npos) << over.error().message;
}

TEST(ReadFileNofollow, EnforcesMaxBytesAcrossReadChunks) {
  TempDir dir;
  const size_t size = 200000;  // several 64 KiB reads
  write_raw(dir / "big", std::string(size, 'y'));
  EXPECT_FALSE(read_file_nofollow(dir / "big", size - 1).has_value());
  auto ok = read_file_nofollow(dir / "big", size);
  ASSERT_TRUE(ok.has_value()) << ok.error().what();
  EXPECT_EQ(ok->size(), size);
}

TEST(ReadFileNofollow, MissingFileErrorNamesThePath) {
  TempDir dir;
  auto r = read_file_nofollow(dir / "absent", 10);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().what().find((dir / "absent").string()), std::string::npos);
}

TEST(WriteFileAtomic, WritesAndLeavesNoTempFile) {
  TempDir dir;
  auto r = write_file_atomic(dir / "out.txt", "first");
  ASSERT_TRUE(r.has_value()) << r.error().what();
  auto back = read_file(dir / "out.txt");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, "first");
  EXPECT_EQ(entries(dir.path()), 1u);
}

TEST(WriteFileAtomic, ReplacesExistingContent) {
  TempDir dir;
  ASSERT_TRUE(write_file_atomic(dir / "out.txt", "a much longer first version").has_value());
  ASSERT_TRUE(write_file_atomic(dir / "out.txt", "short").has_value());
  auto back = read_file(dir / "out.txt");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, "short");
  EXPECT_EQ(entries(dir.path()), 1u);
}

TEST(WriteFileAtomic, CreatesMissingParentDirectories) {
  TempDir dir;
  const fs::path target = dir / "a/b/c.txt";
  ASSERT_TRUE(write_file_atomic(target, "x").has_value());
  auto back = read_file(target);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, "x");
}

TEST(WriteFileAtomic, ReplacesASymlinkInsteadOfWritingThroughIt) {
  TempDir dir;
  write_raw(dir / "target", "original");
  fs::create_symlink(dir / "target", dir / "link");
  ASSERT_TRUE(write_file_atomic(dir / "link", "new").has_value());
  EXPECT_FALSE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(*read_file(dir / "target"), "original");
  EXPECT_EQ(*read_file(dir / "link"), "new");
}

TEST(WriteFileAtomic, FailsUnderARegularFileAndNamesThePath) {
  TempDir dir;
  write_raw(dir / "plain", "x");
  auto r = write_file_atomic(dir / "plain/inside.txt", "data");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().what().find((dir / "plain/inside.txt").string()), std::string::npos) << r.error().what();
}

TEST(MakeUniqueDir, GivesDistinctDirectoriesUnderTheParent) {
  TempDir dir;
  std::set<fs::path> seen;
  for (int i = 0; i < 20; ++i) {
    auto d = make_unique_dir(dir.path(), "job-");
    ASSERT_TRUE(d.has_value()) << d.error().what();
    EXPECT_TRUE(fs::is_directory(*d));
    EXPECT_EQ(d->parent_path(), dir.path());
    EXPECT_TRUE(d->filename().string().starts_with("job-")) << *d;
    EXPECT_TRUE(seen.insert(*d).second) << "duplicate " << *d;
  }
  EXPECT_EQ(entries(dir.path()), 20u);
}

TEST(MakeUniqueDir, CreatesAMissingParent) {
  TempDir dir;
  auto d = make_unique_dir(dir / "jobs/nested", "j");
  ASSERT_TRUE(d.has_value()) << d.error().what();
  EXPECT_TRUE(fs::is_directory(*d));
  EXPECT_EQ(d->parent_path(), dir / "jobs/nested");
}

TEST(MakeUniqueDir, ParentUnderARegularFileIsAnErrorNamingIt) {
  TempDir dir;
  write_raw(dir / "plain", "x");
  auto d = make_unique_dir(dir / "plain/jobs", "j");
  ASSERT_FALSE(d.has_value());
  EXPECT_NE(d.error().what().find((dir / "plain/jobs").string()), std::string::npos) << d.error().what();
}

}  // namespace
}  // namespace kwb::util
