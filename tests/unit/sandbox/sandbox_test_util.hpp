#pragma once
// Helpers for the sandbox tests: temp dirs, requests, /proc scans.
#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "launcher/sandbox.hpp"

namespace kwb::sandbox::test {

// A fresh directory under /tmp (mkdtemp), removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    char templ[] = "/tmp/kwb-sandbox-test-XXXXXX";
    if (!mkdtemp(templ)) throw std::runtime_error("mkdtemp failed");
    m_path = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

 private:
  std::filesystem::path m_path;
};

inline Request make_request(const TempDir& job, std::vector<std::string> argv, Profile profile = run_profile()) {
  Request req;
  req.job_dir = job.path();
  req.argv = std::move(argv);
  req.env = {{"PATH", "/usr/bin"}};
  req.profile = std::move(profile);
  return req;
}

inline Request shell(const TempDir& job, const std::string& script, Profile profile = run_profile()) {
  return make_request(job, {"/bin/sh", "-c", script}, std::move(profile));
}

// Runs `req` and fails the test when the sandbox could not be started.
inline Outcome run_ok(const Request& req) {
  auto outcome = run(req);
  EXPECT_TRUE(outcome.has_value()) << outcome.error().what();
  return outcome.value_or(Outcome{});
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Pids of host processes with an argv element equal to `arg`.
inline std::vector<pid_t> processes_with_arg(const std::string& arg) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_text(entry.path() / "cmdline");
    std::stringstream parts(cmdline);
    for (std::string part; std::getline(parts, part, '\0');) {
      if (part == arg) {
        found.push_back(std::stoi(name));
        break;
      }
    }
  }
  return found;
}

inline size_t count_entries(const std::filesystem::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

// A marker that no other process on the machine carries.
inline std::string unique_marker(const std::string& tag) {
  static int counter = 0;
  return "kwb-" + tag + "-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
}

}  // namespace kwb::sandbox::test
