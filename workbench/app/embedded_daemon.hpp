#pragma once
// `kwb mcp` without --server: a `kwb serve` of its own on the workspace, as a child process on
// a free loopback port (its output goes to stderr: stdout is the MCP channel), with auth on and
// a token of the chosen role created for this session in the workspace database and revoked
// when the session ends. The child dies with its parent (PR_SET_PDEATHSIG).
#include <filesystem>
#include <string>
#include <sys/types.h>

#include "util/error.hpp"

namespace kwb::app {

class EmbeddedDaemon {
 public:
  EmbeddedDaemon() = default;
  EmbeddedDaemon(const EmbeddedDaemon&) = delete;
  EmbeddedDaemon& operator=(const EmbeddedDaemon&) = delete;
  ~EmbeddedDaemon();  // revokes the token, stops the daemon

  // Starts it and waits (at most two minutes) until it listens. The error carries the
  // daemon's reason (e.g. another daemon holds the workspace: use --server then).
  util::Result<void> start(const std::filesystem::path& workspace, const std::string& role);
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  const std::string& token() const { return m_token; }

 private:
  std::filesystem::path m_workspace, m_dir;
  pid_t m_pid = -1;
  int m_port = 0;
  std::string m_token;
  int64_t m_token_id = 0;
};

}  // namespace kwb::app
