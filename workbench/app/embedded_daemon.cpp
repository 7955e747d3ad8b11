#include "app/embedded_daemon.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "store/database.hpp"
#include "store/token_repository.hpp"
#include "util/ignore.hpp"

namespace kwb::app {

EmbeddedDaemon::~EmbeddedDaemon() {
  if (m_token_id != 0)
    if (auto db = store::Database::open(m_workspace / "kwb.db"))
      util::ignore(store::TokenRepository(*db).revoke(m_token_id),
                   "the embedded daemon's token " + std::to_string(m_token_id) +
                       " stays live: revoke it with `kwb token revoke " + std::to_string(m_token_id) + "`");
  if (m_pid > 0) {
    ::kill(m_pid, SIGTERM);
    int status = 0;
    for (int i = 0; i < 2000 && ::waitpid(m_pid, &status, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (::waitpid(m_pid, &status, WNOHANG) == 0) {
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, &status, 0);
    }
  }
  std::error_code ec;
  if (!m_dir.empty()) std::filesystem::remove_all(m_dir, ec);
}

util::Result<void> EmbeddedDaemon::start(const std::filesystem::path& workspace, const std::string& role) {
  m_workspace = workspace;
  char tmpl[] = "/tmp/kwb-mcp-XXXXXX";
  if (!::mkdtemp(tmpl)) return util::fail("kwb mcp", "cannot create a temporary folder for the daemon's port file");
  m_dir = tmpl;
  auto port_file = m_dir / "port";
  std::vector<std::string> args = {"/proc/self/exe", "serve", "--host", "127.0.0.1", "--port", "0", "--port-file",
                                   port_file.string(), "--workspace", workspace.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return util::fail("kwb mcp", "fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    ::dup2(2, 1);  // the daemon's messages must not reach the MCP channel
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  m_pid = pid;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (m_port == 0) {
    int status = 0;
    if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_pid = -1;
      return util::fail("kwb mcp", "the embedded `kwb serve` on " + workspace.string() +
                                       " exited before listening (its message is above; if another daemon serves this "
                                       "workspace, run `kwb mcp --server URL` with KWB_TOKEN instead)");
    }
    if (std::chrono::steady_clock::now() > deadline) return util::fail("kwb mcp", "the embedded `kwb serve` did not listen within 2 minutes");
    std::ifstream in(port_file);
    if (!(in >> m_port)) m_port = 0;
    if (m_port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto db = store::Database::open(workspace / "kwb.db");
  if (!db) return std::unexpected(db.error());
  store::TokenRepository tokens(*db);
  auto secret = tokens.create("kwb mcp (pid " + std::to_string(::getpid()) + ")", role);
  if (!secret) return std::unexpected(secret.error());
  m_token = *secret;
  if (auto found = tokens.authenticate(m_token); found && *found) m_token_id = (*found)->id;
  return {};
}

}  // namespace kwb::app
