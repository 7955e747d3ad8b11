#pragma once
// The C++ toolchain for cpu candidates: g++ or clang++ from /usr, run inside the sandbox's
// compile profile to build the candidate into a shared object.
#include <filesystem>
#include <string>
#include <vector>

#include "core/verdict.hpp"
#include "util/error.hpp"

namespace kwb::build {

struct CompileRequest {
  std::string source;                 // candidate source text
  std::string display_name;           // name used in diagnostics (the user's file)
  std::filesystem::path job_dir;      // host folder, bound at /job in the sandbox
  std::vector<std::string> extra_flags;  // checked by check_flags
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  int timeout_ms = 60000;
  std::filesystem::path cache_dir;  // empty: no compile cache
};

struct CompileResult {
  bool ok = false;
  bool timed_out = false;
  std::vector<core::Diagnostic> diagnostics;
  std::string log;             // compiler output, capped
  std::string object_inside;   // path of the shared object inside the sandbox ("/job/candidate.so")
  double wall_ms = 0;
  bool cache_hit = false;      // the shared object came from the compile cache
  std::string cache_key;
  std::string reason;          // one line when !ok
};

class CpuToolchain {
 public:
  // `cxx` is "g++", "clang++" or an absolute path under /usr/bin; its version is read once.
  static util::Result<CpuToolchain> detect(const std::string& cxx);
  const std::string& identity() const { return m_identity; }  // e.g. "g++ 12.2.0"
  std::vector<std::string> base_flags() const;
  // Errors only for failures of the trusted side; compile errors are a CompileResult.
  util::Result<CompileResult> compile(const CompileRequest& req) const;

 private:
  std::filesystem::path m_path;
  std::string m_identity;
  std::string m_target;
};

}  // namespace kwb::build
