#pragma once
// The C++ toolchain for cpu candidates: g++ or clang++ from /usr, run inside the sandbox's
// compile profile to build the candidate into a shared object.
#include <filesystem>
#include <string>
#include <vector>

#include "build/compile_request.hpp"
#include "util/error.hpp"

namespace kwb::build {

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
