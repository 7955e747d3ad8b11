// kwb spec add DIR: send a spec folder to a running daemon (POST /v1/specs), or, with no daemon
// on the workspace, validate and commit it into the workspace's library directly.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "app/library_support.hpp"
#include "app/spec_sources.hpp"
#include "client/api_client.hpp"
#include "library/spec_intake.hpp"
#include "store/workspace_lock.hpp"
#include "util/fs.hpp"

namespace kwb::app {

namespace {

namespace fs = std::filesystem;

struct SpecAddArgs {
  std::string dir, server, token;
  bool json = false;
};

int usage(const std::string& message) {
  std::fprintf(stderr, "kwb spec add: %s\n", message.c_str());
  return 2;
}

// The folder's files (its top level only: a spec folder has no subfolders).
util::Result<library::FolderFiles> read_folder(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return util::fail(dir.string(), "not a directory (a spec folder: spec.json, reference.cpp, ...)");
  library::FolderFiles files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec)) return util::fail((dir / name).string(), "a spec folder holds files only, no folders");
    if (!it->is_regular_file(ec)) return util::fail((dir / name).string(), "not a regular file");
    auto text = util::read_file(it->path());
    if (!text) return std::unexpected(text.error());
    files[name] = std::move(*text);
  }
  if (ec) return util::fail(dir.string(), "cannot list: " + ec.message());
  return files;
}

// `served`: who serves it now ("it is served now", or what will serve it).
int print(const nlohmann::json& body, bool json, const char* served) {
  if (json) {
    std::cout << body.dump(2) << "\n";
    return 0;
  }
  const std::string status = body.value("status", "");
  std::string commit = body.contains("commit") && body["commit"].is_string() ? body["commit"].get<std::string>() : "";
  if (status == "unchanged") {
    std::printf("kwb spec add: %s v%d is already in the library with these files: nothing to do\n",
                body.value("op", "").c_str(), body.value("version", 0));
  } else {
    std::string replaces = body.contains("replaces") && body["replaces"].is_string()
                               ? " (replaces " + body["replaces"].get<std::string>() + ")"
                               : " (a new op)";
    std::printf("kwb spec add: added %s v%d%s in library commit %s; %s\n", body.value("op", "").c_str(),
                body.value("version", 0), replaces.c_str(), commit.substr(0, 12).c_str(), served);
  }
  std::printf("  digest %s\n", body.value("digest", "").c_str());
  return 0;
}

int through_daemon(const SpecAddArgs& a, const library::FolderFiles& files) {
  client::ApiClient api(client::resolve_endpoint(a.server, a.token));
  auto reply = api.post("/v1/specs", nlohmann::json{{"files", files}});
  if (!reply) {
    std::fprintf(stderr, "kwb spec add: %s\n", reply.error().what().c_str());
    return reply.error().status == 400 || reply.error().status == 409 ? 1 : 2;
  }
  return print(reply->body, a.json, "the daemon serves it now");
}

int on_workspace(const SpecAddArgs& a, const util::Settings& settings, const library::FolderFiles& files) {
  // The daemon's catalog would not see a spec committed behind its back: with one running, the
  // spec goes through it. Holding the lock meanwhile keeps a daemon from starting half-way.
  const fs::path workspace = settings.get("workspace");
  std::error_code ec;
  fs::create_directories(workspace, ec);
  auto lock = store::WorkspaceLock::acquire(workspace, "kwb spec add (pid " + std::to_string(::getpid()) + ")");
  if (!lock) {
    if (lock.error().kind == util::ErrorKind::busy)
      return usage(lock.error().what() + "; or add the spec through that daemon: kwb spec add " + a.dir +
                   " --server URL --token TOKEN (a reviewer or admin token)");
    return usage(lock.error().what());
  }
  auto repo = library::Repository::open_or_seed(library_path(settings), settings.get("kernels-dir"));
  if (!repo) return usage("library: " + repo.error().what());
  auto catalog = load_catalog(settings, repo->get());
  if (!catalog) return usage(catalog.error().what());
  const char* user = std::getenv("USER");
  library::SpecIntake intake(**repo, *catalog, spec_cache_dir(settings), spec_checks(settings));
  auto r = intake.add(files, std::string("kwb spec add") + (user && *user ? " (" + std::string(user) + ")" : ""));
  using Code = library::SpecAddResult::Code;
  if (r.code == Code::added || r.code == Code::unchanged)
    return print(r.body(), a.json, "kwb commands on this workspace (and a daemon started on it) serve it");
  std::fprintf(stderr, "kwb spec add: %s\n", r.error.what().c_str());
  return r.code == Code::internal ? 2 : 1;
}

}  // namespace

void add_spec_add_command(CLI::App& spec, util::Settings& settings, int& code) {
  auto a = std::make_shared<SpecAddArgs>();
  auto* cmd = spec.add_subcommand(
      "add", "Validate a spec folder and commit it into the library as one commit; the daemon serves it at once");
  cmd->add_option("dir", a->dir, "The spec folder: spec.json, reference.cpp (+ reference.cu, baselines)")->required();
  cmd->add_option("--server", a->server,
                  "Send it to this daemon (POST /v1/specs) [env KWB_SERVER]; without: the workspace's library, "
                  "when no daemon serves it");
  cmd->add_option("--token", a->token, "Bearer token for --server: a reviewer or admin token [env KWB_TOKEN]");
  cmd->add_flag("--json", a->json, "Print the result as JSON");
  add_setting_flags(*cmd, settings);
  cmd->callback([a, &settings, &code] {
    auto files = read_folder(a->dir);
    if (!files) {
      code = usage(files.error().what());
      return;
    }
    code = client::server_named(a->server) ? through_daemon(*a, *files) : on_workspace(*a, settings, *files);
  });
}

}  // namespace kwb::app
