// Default limits of the two kinds of job (docs/security.md "Limits"). Callers may change any field.
#include "launcher/sandbox.hpp"

namespace kwb::sandbox {

Profile compile_profile() {
  Profile p;
  p.name = "compile";
  p.wall = std::chrono::milliseconds(60'000);
  p.cpu_seconds = 60;
  p.file_bytes = 256ll << 20;
  p.open_files = 256;
  p.tmp_bytes = 512ll << 20;
  p.output_bytes = 1ll << 20;
  p.output_overflow_fails = false;  // compiler diagnostics are truncated with a note
  p.memory_bytes = 2ll << 30;
  p.max_processes = 64;
  p.job_writable = true;  // the compiler writes its output there
  return p;
}

Profile run_profile() {
  Profile p;
  p.name = "run";
  p.wall = std::chrono::milliseconds(10'000);
  p.cpu_seconds = 30;
  p.file_bytes = 64ll << 20;
  p.open_files = 256;
  p.tmp_bytes = 64ll << 20;
  p.output_bytes = 64ll << 10;
  p.output_overflow_fails = true;  // a candidate has nothing to print: a flood is a verdict
  p.memory_bytes = 4ll << 30;
  p.max_processes = 64;
  p.job_writable = false;  // the runner only reads the candidate's object from /job
  return p;
}

std::vector<std::string> candidate_decoys() {
  return {"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_rsa_key",
          "/root/.ssh/id_rsa", "/root/.ssh/id_ed25519", "/root/.bash_history", "/root/.aws/credentials",
          "/root/.docker/config.json", "/root/.git-credentials"};
}

std::vector<std::pair<std::string, std::string>> default_env() {
  return {{"PATH", "/usr/bin:/bin"}, {"HOME", "/job"}, {"TMPDIR", "/tmp"}, {"LANG", "C.UTF-8"}};
}

}  // namespace kwb::sandbox
