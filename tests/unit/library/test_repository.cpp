// The library repository through libgit2: seeding, atomic commits, compare-and-swap conflicts
// between two handles, history with trailers, and a writer killed with SIGKILL mid-commit.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <git2.h>

#include "library/dispatch.hpp"
#include "library/repository.hpp"
#include "temp_dir.hpp"

namespace kwb::library {
namespace {

using kwb::test::TempDir;

std::filesystem::path kernels() { return std::filesystem::path(KWB_TEST_SOURCE_DIR) / "kernels"; }

TEST(LibraryRepository, SeedsOnceFromKernelsAndReadsFromCommits) {
  TempDir dir;
  auto repo = Repository::open_or_seed(dir / "lib", kernels());
  ASSERT_TRUE(repo) << repo.error().what();
  auto head = (*repo)->head();
  ASSERT_TRUE(head);
  auto log = (*repo)->log();
  ASSERT_TRUE(log);
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ(log->front().summary, "Seed the library from kernels/");
  auto src = (*repo)->read("vector_add/cpu/vectorized.cpp");
  ASSERT_TRUE(src) << src.error().what();
  EXPECT_NE(src->find("kwb_vector_add_f32"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir / "lib" / "dispatch.json"));  // working tree checked out
  auto missing = (*repo)->read("nope/cpu/x.cpp");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().what().find("nope/cpu/x.cpp"), std::string::npos);
  // Opening again does not seed again.
  repo->reset();
  auto again = Repository::open_or_seed(dir / "lib", kernels());
  ASSERT_TRUE(again);
  EXPECT_EQ(*(*again)->head(), *head);
}

TEST(LibraryRepository, CommitIsACompareAndSwapOnTheBranch) {
  TempDir dir;
  auto a = Repository::open_or_seed(dir / "lib", kernels());
  ASSERT_TRUE(a);
  auto b = Repository::open(dir / "lib");  // a second handle, as another process would have
  ASSERT_TRUE(b);
  std::string base = *(*a)->head();
  auto first = (*a)->commit(base, {{"x/cpu/one.cpp", "one\n"}}, "one\n\nKwb-Candidate: c-1\n");
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->id);
  auto second = (*b)->commit(base, {{"x/cpu/two.cpp", "two\n"}}, "two\n");
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->id);
  EXPECT_EQ(second->head, *first->id);
  EXPECT_FALSE((*b)->read("x/cpu/two.cpp"));
  auto log = (*b)->log("x");
  ASSERT_TRUE(log);
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ(log->front().trailers.at("Kwb-Candidate"), "c-1");
  EXPECT_EQ(*(*b)->read("x/cpu/one.cpp"), "one\n");
  EXPECT_FALSE((*b)->read("x/cpu/one.cpp", base));  // not in the older commit
}

TEST(LibraryRepository, UnifiedDiffShowsBothSides) {
  auto d = unified_diff("a.cpp", "int x;\nint y;\n", "b.cpp", "int x;\nint z;\n");
  EXPECT_NE(d.find("--- a/a.cpp"), std::string::npos) << d;
  EXPECT_NE(d.find("+++ b/b.cpp"), std::string::npos) << d;
  EXPECT_NE(d.find("-int y;"), std::string::npos) << d;
  EXPECT_NE(d.find("+int z;"), std::string::npos) << d;
}

// A writer process commits in a loop (each commit rewrites dispatch.json to name the file it
// adds) and reports each commit on a pipe; it is SIGKILLed after a few, at an arbitrary point of
// the next. Every time, the head must be a complete commit: dispatch.json parses and every
// kernel it names is in the same tree.
TEST(LibraryRepository, SigkillDuringCommitsNeverLeavesAHalfWrittenHead) {
  TempDir dir;
  auto repo = Repository::open_or_seed(dir / "lib", kernels());
  ASSERT_TRUE(repo);
  repo->reset();
  for (int round = 0; round < 12; ++round) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      auto w = Repository::open(dir / "lib");
      if (!w) _exit(3);
      for (int i = 0;; ++i) {
        auto head = (*w)->head();
        auto text = (*w)->read("dispatch.json");
        if (!head || !text) _exit(4);
        auto d = parse_dispatch(*text);
        if (!d) _exit(5);
        std::string name = "vector_add/cpu/r" + std::to_string(round) + "_" + std::to_string(i) + ".cpp";
        d->upsert({"vector_add", "f32", "cpu", "cpu-x86_64", name, "kwb_vector_add_f32", "", {}});
        std::string big(64 * 1024 + i, 'k');  // some bytes to write
        auto c = (*w)->commit(*head, {{name, big}, {"dispatch.json", dispatch_text(*d)}}, "round commit\n");
        if (!c || !c->id) _exit(6);
        char b = 1;
        if (write(fds[1], &b, 1) != 1) _exit(7);
      }
    }
    close(fds[1]);
    char buf[8];
    int seen = 0;
    while (seen < 1 + round % 4) {
      ssize_t n = read(fds[0], buf, 1);
      ASSERT_EQ(n, 1) << "the writer stopped early";
      ++seen;
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(status)) << "writer exited with " << WEXITSTATUS(status);

    auto check = Repository::open(dir / "lib");
    ASSERT_TRUE(check) << check.error().what();
    auto files = (*check)->files();
    ASSERT_TRUE(files) << files.error().what();
    auto d = parse_dispatch(files->at("dispatch.json"));
    ASSERT_TRUE(d) << d.error().what();
    for (const auto& e : d->entries) EXPECT_TRUE(files->contains(e.kernel)) << "round " << round << ": " << e.kernel;
    auto log = (*check)->log("", 1000);
    ASSERT_TRUE(log);
    EXPECT_GE(log->size(), size_t(2 + round));
  }
}

TEST(LibraryRepository, ReadsADetachedHeadButCommitsOnlyToABranch) {
  TempDir dir;
  auto repo = Repository::open_or_seed(dir / "lib", kernels());
  ASSERT_TRUE(repo);
  std::string head = *(*repo)->head();
  repo->reset();
  git_libgit2_init();
  git_repository* raw = nullptr;
  ASSERT_EQ(git_repository_open(&raw, (dir / "lib").c_str()), 0);
  git_oid oid;
  git_oid_fromstr(&oid, head.c_str());
  ASSERT_EQ(git_repository_set_head_detached(raw, &oid), 0);  // what a CI checkout of a pull request has
  git_repository_free(raw);
  auto detached = Repository::open_or_seed(dir / "lib", kernels());
  ASSERT_TRUE(detached) << detached.error().what();
  EXPECT_EQ(*(*detached)->head(), head);
  EXPECT_TRUE((*detached)->read("dispatch.json"));
  auto c = (*detached)->commit(head, {{"x.cpp", "x"}}, "x\n");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().what().find("HEAD is detached"), std::string::npos) << c.error().what();
}

TEST(LibraryRepository, SeedsAnEmptyBareRepositoryInPlace) {
  TempDir dir;
  git_libgit2_init();
  git_repository* raw = nullptr;
  ASSERT_EQ(git_repository_init(&raw, (dir / "bare.git").c_str(), 1), 0);
  git_repository_free(raw);
  auto repo = Repository::open_or_seed(dir / "bare.git", kernels());
  ASSERT_TRUE(repo) << repo.error().what();
  EXPECT_TRUE((*repo)->read("dispatch.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "bare.git" / ".git"));
  EXPECT_FALSE(std::filesystem::exists(dir / "bare.git" / "dispatch.json"));
}

// A tree whose entry is named ".." (libgit2 reads such trees without complaint): files() must
// refuse it, since kwb export writes the files out.
TEST(LibraryRepository, RefusesTreeEntriesThatLeaveTheLibrary) {
  TempDir dir;
  auto repo = Repository::open_or_seed(dir / "lib", kernels());
  ASSERT_TRUE(repo);
  std::string head = *(*repo)->head();
  repo->reset();
  git_libgit2_init();
  git_repository* raw = nullptr;
  ASSERT_EQ(git_repository_open(&raw, (dir / "lib").c_str()), 0);
  git_odb* odb = nullptr;
  ASSERT_EQ(git_repository_odb(&odb, raw), 0);
  git_oid blob, tree, commit, parent;
  ASSERT_EQ(git_odb_write(&blob, odb, "evil", 4, GIT_OBJECT_BLOB), 0);
  std::string entry = std::string("100644 ..") + '\0' + std::string(reinterpret_cast<const char*>(blob.id), 20);
  std::string entries = entry;  // a tree with one entry named ".." ...
  ASSERT_EQ(git_odb_write(&tree, odb, entries.data(), entries.size(), GIT_OBJECT_TREE), 0);
  git_oid_fromstr(&parent, head.c_str());
  char tree_hex[GIT_OID_HEXSZ + 1], parent_hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(tree_hex, sizeof tree_hex, &tree);
  git_oid_tostr(parent_hex, sizeof parent_hex, &parent);
  std::string body = std::string("tree ") + tree_hex + "\nparent " + parent_hex +
                     "\nauthor x <x@x> 0 +0000\ncommitter x <x@x> 0 +0000\n\nevil\n";
  ASSERT_EQ(git_odb_write(&commit, odb, body.data(), body.size(), GIT_OBJECT_COMMIT), 0);
  git_reference* ref = nullptr;
  ASSERT_EQ(git_reference_create(&ref, raw, "refs/heads/main", &commit, 1, "evil"), 0);
  git_reference_free(ref);
  git_odb_free(odb);
  git_repository_free(raw);
  auto opened = Repository::open(dir / "lib");
  ASSERT_TRUE(opened);
  auto files = (*opened)->files();
  ASSERT_FALSE(files);
  EXPECT_NE(files.error().what().find("would leave the library folder"), std::string::npos) << files.error().what();
}

}  // namespace
}  // namespace kwb::library
