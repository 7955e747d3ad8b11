#include "library/repository.hpp"

#include <git2.h>

#include "library/commit_lock.hpp"
#include "library/seed.hpp"

namespace kwb::library {

namespace fs = std::filesystem;

namespace {

std::string git_message(int rc) {
  const git_error* e = git_error_last();
  return e && e->message ? std::string(e->message) : "libgit2 error " + std::to_string(rc);
}

void ensure_init() {
  static const int once = git_libgit2_init();
  (void)once;
}

template <class T, void (*Free)(T*)>
struct Own {
  T* p = nullptr;
  Own() = default;
  Own(const Own&) = delete;
  Own& operator=(const Own&) = delete;
  ~Own() {
    if (p) Free(p);
  }
  T** out() { return &p; }
  T* get() const { return p; }
};
using Ref = Own<git_reference, git_reference_free>;
using Commit = Own<git_commit, git_commit_free>;
using Tree = Own<git_tree, git_tree_free>;
using TreeEntry = Own<git_tree_entry, git_tree_entry_free>;
using Blob = Own<git_blob, git_blob_free>;
using Walk = Own<git_revwalk, git_revwalk_free>;
using Sig = Own<git_signature, git_signature_free>;
using Builder = Own<git_treebuilder, git_treebuilder_free>;
using Patch = Own<git_patch, git_patch_free>;

std::string oid_text(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}


}  // namespace

struct Repository::Git {
  git_repository* repo = nullptr;
  ~Git() {
    if (repo) git_repository_free(repo);
  }

  util::Unexpected fail(const std::string& what, int rc) const {
    return util::fail(std::string(git_repository_path(repo)), what + ": " + git_message(rc));
  }

  // The branch HEAD points at ("refs/heads/main"); a detached HEAD is an error.
  util::Result<std::string> branch() const {
    Ref head;
    if (int rc = git_reference_lookup(head.out(), repo, "HEAD"); rc < 0) return fail("reading HEAD", rc);
    if (git_reference_type(head.get()) != GIT_REFERENCE_SYMBOLIC)
      return util::fail(std::string(git_repository_path(repo)),
                        "HEAD is detached; the library needs a branch checked out to commit promotions to");
    return std::string(git_reference_symbolic_target(head.get()));
  }

  // The head commit id (through the branch, or a detached HEAD: reading works on a CI checkout
  // of a pull request), or nullopt on an unborn branch.
  util::Result<std::optional<git_oid>> head_oid() const {
    git_oid oid;
    int rc = git_reference_name_to_id(&oid, repo, "HEAD");
    if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH) return std::optional<git_oid>();
    if (rc < 0) return fail("resolving HEAD", rc);
    return std::optional<git_oid>(oid);
  }

  util::Result<git_oid> resolve(const std::string& commit) const {
    if (commit.empty()) {
      auto h = head_oid();
      if (!h) return std::unexpected(h.error());
      if (!*h) return util::fail(std::string(git_repository_path(repo)), "the library has no commit yet");
      return **h;
    }
    git_oid oid;
    if (git_oid_fromstr(&oid, commit.c_str()) < 0)
      return util::fail("commit " + commit, "not a full hexadecimal commit id");
    return oid;
  }

  util::Result<void> tree_of(const git_oid& commit_oid, Tree& tree) const {
    Commit c;
    if (int rc = git_commit_lookup(c.out(), repo, &commit_oid); rc < 0) return fail("commit " + oid_text(commit_oid), rc);
    if (int rc = git_commit_tree(tree.out(), c.get()); rc < 0) return fail("tree of " + oid_text(commit_oid), rc);
    return {};
  }
};

Repository::Repository(fs::path path, std::unique_ptr<Git> git) : m_path(std::move(path)), m_git(std::move(git)) {}
Repository::~Repository() = default;

util::Result<std::unique_ptr<Repository>> Repository::open(const fs::path& path) {
  ensure_init();
  auto git = std::make_unique<Git>();
  if (int rc = git_repository_open_ext(&git->repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr); rc < 0)
    return util::fail(path.string(), "not a git repository: " + git_message(rc));
  return std::unique_ptr<Repository>(new Repository(path, std::move(git)));
}

util::Result<std::unique_ptr<Repository>> Repository::open_or_seed(const fs::path& path, const fs::path& kernels_dir) {
  ensure_init();
  std::error_code ec;
  std::unique_ptr<Repository> repo;
  if (fs::exists(path / ".git", ec) || fs::exists(path / "HEAD", ec)) {  // a repository, bare or not
    auto opened = open(path);
    if (!opened) return opened;
    auto head = (*opened)->m_git->head_oid();
    if (!head) return std::unexpected(head.error());
    if (*head) return opened;
    repo = std::move(*opened);  // no commit yet: seed it
  }
  auto seed = seed_files(kernels_dir);
  if (!seed) return std::unexpected(seed.error());
  if (!repo) {
    auto git = std::make_unique<Git>();
    git_repository_init_options opts = GIT_REPOSITORY_INIT_OPTIONS_INIT;
    opts.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_MKDIR;
    opts.initial_head = "main";
    if (int rc = git_repository_init_ext(&git->repo, path.c_str(), &opts); rc < 0)
      return util::fail(path.string(), "cannot create the library repository: " + git_message(rc));
    repo.reset(new Repository(path, std::move(git)));
  }
  auto done = repo->commit("", *seed, "Seed the library from kernels/\n\nEvery shipped kernel is the incumbent of its op, "
                                      "variant and backend for device class \"any\".\n");
  if (!done) return std::unexpected(done.error());
  if (!done->id) return util::fail(path.string(), "another process seeded the library at the same time; start again");
  return repo;
}

util::Result<std::string> Repository::head() {
  std::lock_guard lock(m_mutex);
  auto oid = m_git->resolve("");
  if (!oid) return std::unexpected(oid.error());
  return oid_text(*oid);
}

util::Result<std::string> Repository::read(const std::string& path, const std::string& commit) {
  std::lock_guard lock(m_mutex);
  auto oid = m_git->resolve(commit);
  if (!oid) return std::unexpected(oid.error());
  Tree tree;
  if (auto r = m_git->tree_of(*oid, tree); !r) return std::unexpected(r.error());
  TreeEntry entry;
  if (git_tree_entry_bypath(entry.out(), tree.get(), path.c_str()) < 0 ||
      git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB)
    return util::fail("library:" + path, "no such file in commit " + oid_text(*oid).substr(0, 12));
  Blob blob;
  if (int rc = git_blob_lookup(blob.out(), m_git->repo, git_tree_entry_id(entry.get())); rc < 0)
    return m_git->fail("reading " + path, rc);
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())), size_t(git_blob_rawsize(blob.get())));
}

util::Result<std::map<std::string, std::string>> Repository::files(const std::string& commit) {
  std::lock_guard lock(m_mutex);
  auto oid = m_git->resolve(commit);
  if (!oid) return std::unexpected(oid.error());
  Tree tree;
  if (auto r = m_git->tree_of(*oid, tree); !r) return std::unexpected(r.error());
  struct Walked {
    git_repository* repo;
    std::map<std::string, std::string> files;
    std::string error;
  } walked{m_git->repo, {}, {}};
  auto visit = [](const char* root, const git_tree_entry* entry, void* payload) -> int {
    auto& w = *static_cast<Walked*>(payload);
    if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return 0;
    Blob blob;
    std::string name = git_tree_entry_name(entry);
    std::string path = std::string(root) + name;
    // libgit2 does not vet names in trees it reads: refuse any that could leave a checkout.
    if (name.empty() || name == "." || name == ".." || name == ".git" || name.find('/') != std::string::npos ||
        path.find("/.git/") != std::string::npos || path.starts_with(".git/")) {
      w.error = "the library tree has an entry named '" + path + "', which would leave the library folder";
      return -1;
    }
    if (git_blob_lookup(blob.out(), w.repo, git_tree_entry_id(entry)) < 0) {
      w.error = "cannot read " + path;
      return -1;
    }
    w.files[path] = std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                                size_t(git_blob_rawsize(blob.get())));
    return 0;
  };
  if (int rc = git_tree_walk(tree.get(), GIT_TREEWALK_PRE, visit, &walked); rc < 0)
    return util::fail(m_path.string(), walked.error.empty() ? git_message(rc) : walked.error);
  return std::move(walked.files);
}

util::Result<CommitResult> Repository::commit(const std::string& expected_head,
                                              const std::map<std::string, std::string>& files,
                                              const std::string& message,
                                              const std::vector<std::string>& removed) {
  std::lock_guard lock(m_mutex);
  git_repository* repo = m_git->repo;
  auto branch = m_git->branch();
  if (!branch) return std::unexpected(branch.error());
  detail::CommitLock commit_lock(git_repository_path(repo), *branch);
  if (!commit_lock.locked()) return util::fail(m_path.string(), commit_lock.error());
  auto current = m_git->head_oid();
  if (!current) return std::unexpected(current.error());
  std::string current_text = *current ? oid_text(**current) : "";
  if (current_text != expected_head) return CommitResult{std::nullopt, current_text};

  Tree baseline;
  if (*current) {
    if (auto r = m_git->tree_of(**current, baseline); !r) return std::unexpected(r.error());
  } else {
    Builder empty;
    git_oid empty_oid;
    if (int rc = git_treebuilder_new(empty.out(), repo, nullptr); rc < 0) return m_git->fail("empty tree", rc);
    if (int rc = git_treebuilder_write(&empty_oid, empty.get()); rc < 0) return m_git->fail("empty tree", rc);
    if (int rc = git_tree_lookup(baseline.out(), repo, &empty_oid); rc < 0) return m_git->fail("empty tree", rc);
  }
  std::vector<git_tree_update> updates;
  updates.reserve(files.size() + removed.size());
  for (const auto& [path, content] : files) {
    git_tree_update u{};
    u.action = GIT_TREE_UPDATE_UPSERT;
    u.filemode = GIT_FILEMODE_BLOB;
    u.path = path.c_str();
    if (int rc = git_blob_create_from_buffer(&u.id, repo, content.data(), content.size()); rc < 0)
      return m_git->fail("writing " + path, rc);
    updates.push_back(u);
  }
  for (const auto& path : removed) {
    if (files.contains(path)) continue;
    git_tree_update u{};
    u.action = GIT_TREE_UPDATE_REMOVE;
    u.path = path.c_str();
    updates.push_back(u);
  }
  git_oid tree_oid, commit_oid;
  if (int rc = git_tree_create_updated(&tree_oid, repo, baseline.get(), updates.size(), updates.data()); rc < 0)
    return m_git->fail("building the tree", rc);
  Tree tree;
  if (int rc = git_tree_lookup(tree.out(), repo, &tree_oid); rc < 0) return m_git->fail("building the tree", rc);
  Sig sig;
  if (int rc = git_signature_now(sig.out(), "Kernel Workbench", "kwb@localhost"); rc < 0)
    return m_git->fail("signature", rc);
  Commit parent;
  if (*current) {
    if (int rc = git_commit_lookup(parent.out(), repo, &**current); rc < 0) return m_git->fail("parent commit", rc);
  }
  const git_commit* parents[] = {parent.get()};
  if (int rc = git_commit_create(&commit_oid, repo, nullptr, sig.get(), sig.get(), "UTF-8", message.c_str(), tree.get(),
                                 *current ? 1 : 0, parents);
      rc < 0)
    return m_git->fail("writing the commit", rc);

  // The commit exists as objects only; moving the branch is the single atomic step (a lock file
  // renamed over the ref), refused when the branch is no longer at the head we built on.
  Ref moved;
  std::string log_message = "kwb: " + message.substr(0, message.find('\n'));
  int rc = *current ? git_reference_create_matching(moved.out(), repo, branch->c_str(), &commit_oid, 1, &**current,
                                                    log_message.c_str())
                    : git_reference_create(moved.out(), repo, branch->c_str(), &commit_oid, 0, log_message.c_str());
  if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS || rc == GIT_ELOCKED) {
    auto now = m_git->head_oid();
    return CommitResult{std::nullopt, now && *now ? oid_text(**now) : ""};
  }
  if (rc < 0) return m_git->fail("moving " + *branch, rc);

  if (!git_repository_is_bare(repo)) {
    git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
    opts.checkout_strategy = *current ? GIT_CHECKOUT_SAFE : GIT_CHECKOUT_FORCE;
    opts.baseline = *current ? baseline.get() : nullptr;
    git_checkout_tree(repo, reinterpret_cast<const git_object*>(tree.get()), &opts);  // best effort: the commit stands
  }
  return CommitResult{oid_text(commit_oid), ""};
}

util::Result<std::vector<CommitInfo>> Repository::log(const std::string& prefix, size_t limit) {
  std::lock_guard lock(m_mutex);
  git_repository* repo = m_git->repo;
  std::vector<CommitInfo> out;
  auto head = m_git->head_oid();
  if (!head) return std::unexpected(head.error());
  if (!*head) return out;
  Walk walk;
  if (int rc = git_revwalk_new(walk.out(), repo); rc < 0) return m_git->fail("log", rc);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  git_revwalk_push(walk.get(), &**head);
  auto entry_id = [&](git_commit* c) -> std::optional<git_oid> {
    Tree tree;
    TreeEntry entry;
    if (git_commit_tree(tree.out(), c) < 0 || git_tree_entry_bypath(entry.out(), tree.get(), prefix.c_str()) < 0)
      return std::nullopt;
    return *git_tree_entry_id(entry.get());
  };
  git_oid oid;
  while (out.size() < limit && git_revwalk_next(&oid, walk.get()) == 0) {
    Commit c;
    if (git_commit_lookup(c.out(), repo, &oid) < 0) continue;
    if (!prefix.empty()) {
      auto mine = entry_id(c.get());
      std::optional<git_oid> before;
      Commit parent;
      if (git_commit_parentcount(c.get()) > 0 && git_commit_parent(parent.out(), c.get(), 0) == 0)
        before = entry_id(parent.get());
      bool same = mine.has_value() == before.has_value() && (!mine || git_oid_equal(&*mine, &*before));
      if (same) continue;
    }
    CommitInfo info;
    info.id = oid_text(oid);
    info.message = git_commit_message(c.get());
    info.summary = info.message.substr(0, info.message.find('\n'));
    info.author = git_commit_author(c.get())->name;
    info.time = git_commit_time(c.get());
    git_message_trailer_array trailers{};
    if (git_message_trailers(&trailers, info.message.c_str()) == 0) {
      for (size_t i = 0; i < trailers.count; ++i) info.trailers[trailers.trailers[i].key] = trailers.trailers[i].value;
      git_message_trailer_array_free(&trailers);
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::string unified_diff(const std::string& old_path, const std::string& old_text, const std::string& new_path,
                         const std::string& new_text) {
  ensure_init();
  Patch patch;
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.context_lines = 3;
  if (git_patch_from_buffers(patch.out(), old_text.data(), old_text.size(), old_path.c_str(), new_text.data(),
                             new_text.size(), new_path.c_str(), &opts) < 0)
    return "";
  git_buf buf = GIT_BUF_INIT;
  std::string out;
  if (git_patch_to_buf(&buf, patch.get()) == 0) out.assign(buf.ptr, buf.size);
  git_buf_dispose(&buf);
  return out;
}

}  // namespace kwb::library
