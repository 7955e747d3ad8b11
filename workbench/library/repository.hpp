#pragma once
// The library repository (docs/library.md "Atomicity and concurrency") through libgit2. The
// workbench reads the library only from commits (never from a working tree), and changes it only by
// one commit whose branch update is a compare-and-swap against the head the change was computed
// from: a promotion is all or nothing, and two promotions computed from the same head cannot both
// land (the second is a conflict). Objects are written before the branch moves, so a process killed
// at any point leaves either the old or the new commit as the head — never a half-written one.
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace kwb::library {

struct CommitInfo {
  std::string id;
  std::string summary;  // first line of the message
  std::string message;
  std::string author;
  int64_t time = 0;     // seconds since the epoch
  std::map<std::string, std::string> trailers;  // "Kwb-Candidate" -> "c-..."
};

struct CommitResult {
  std::optional<std::string> id;  // the new commit; empty on a conflict
  std::string head;               // the branch head the commit was refused against (on a conflict)
};

class Repository {
 public:
  // Opens the git repository at `path`; where there is none, creates one (non-bare, branch
  // main) whose first commit is the seed library built from `kernels_dir`.
  static util::Result<std::unique_ptr<Repository>> open_or_seed(const std::filesystem::path& path,
                                                                const std::filesystem::path& kernels_dir);
  static util::Result<std::unique_ptr<Repository>> open(const std::filesystem::path& path);
  ~Repository();

  const std::filesystem::path& path() const { return m_path; }
  // The commit id of the branch head.
  util::Result<std::string> head();
  // A file of a commit; `commit` empty means the head. The error names the path and commit.
  util::Result<std::string> read(const std::string& path, const std::string& commit = "");
  // Every file of a commit (path -> content).
  util::Result<std::map<std::string, std::string>> files(const std::string& commit = "");
  // One commit writing `files` (path -> content) and removing the files `removed` on top of
  // `expected_head`; a conflict (the branch moved meanwhile) is a CommitResult without an id. A
  // non-bare repository's working tree is then updated (safe checkout: files changed by hand are
  // left alone).
  util::Result<CommitResult> commit(const std::string& expected_head, const std::map<std::string, std::string>& files,
                                    const std::string& message, const std::vector<std::string>& removed = {});
  // Commits from the head backwards that changed anything under `prefix` ("" = every commit).
  util::Result<std::vector<CommitInfo>> log(const std::string& prefix = "", size_t limit = 100);

 private:
  struct Git;
  Repository(std::filesystem::path path, std::unique_ptr<Git> git);
  std::filesystem::path m_path;
  std::unique_ptr<Git> m_git;
  std::mutex m_mutex;  // a git_repository is not safe for concurrent use
};

// A unified diff (git format, 3 lines of context) from `old_text` to `new_text`.
std::string unified_diff(const std::string& old_path, const std::string& old_text, const std::string& new_path,
                         const std::string& new_text);

}  // namespace kwb::library
