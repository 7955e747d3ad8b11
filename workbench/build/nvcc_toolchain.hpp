#pragma once
// The nvcc toolchain for cuda-launcher candidates (docs/architecture.md "Candidate forms"): a .cu
// file with an extern "C" host entry that launches its own kernels (and may use CUB or cuBLAS) is
// built by nvcc into a shared object inside the sandbox's compile profile, like cpu candidates are
// built by g++ (cpu_toolchain.hpp). nvcc and everything it runs (cicc, ptxas, fatbinary, nvlink,
// gcc, ld) must live under /usr, the only host folder the sandbox binds.
#include <filesystem>
#include <string>
#include <vector>

#include "build/compile_request.hpp"
#include "util/error.hpp"

namespace kwb::build {

class NvccToolchain {
 public:
  // A wall-clock limit fit for nvcc, for CompileRequest::timeout_ms (whose default, 60 s, is g++'s):
  // a file including CUB took 27 s on a loaded 2-core machine (13 s of CPU).
  static constexpr int k_default_timeout_ms = 180'000;

  // `nvcc` is an absolute path under /usr, or "" / "nvcc" for the default: /usr/local/cuda/bin/nvcc,
  // else /usr/bin/nvcc. Symlinks are resolved (the toolkit folder is the real one, e.g.
  // /usr/local/cuda-13.0) and the result must still be under /usr. The version is read once with
  // `nvcc --version` (trusted: no candidate input).
  static util::Result<NvccToolchain> detect(const std::string& nvcc = "");

  const std::string& identity() const { return m_identity; }  // e.g. "nvcc 13.0.88"
  const std::filesystem::path& path() const { return m_path; }            // the resolved nvcc
  const std::filesystem::path& toolkit_root() const { return m_root; }    // e.g. /usr/local/cuda-13.0
  const std::string& host_compiler() const { return m_host; }             // e.g. "gcc 12.2.0"

  // The flags every launcher compile gets, before the candidate's: -shared -Xcompiler -fPIC -O3
  // -std=c++17 --gpu-architecture=<arch>. A candidate's own -O<n> replaces the -O3.
  std::vector<std::string> base_flags(const std::string& arch) const;

  // Builds req.source (written to <job>/candidate.cu) into <job>/candidate.so for `arch`
  // ("sm_90a", "sm_80", ...). req.extra_flags are checked by check_launcher_flags; -lcublas /
  // -lcublasLt also get an rpath (RUNPATH) to <toolkit>/lib64, added here. Errors only for
  // failures of the trusted side (bad arch, unwritable job folder, no bwrap); compile errors
  // and refused flags are a CompileResult with ok = false.
  util::Result<CompileResult> compile(const CompileRequest& req, const std::string& arch) const;

  // The full nvcc command as run inside the sandbox (argv[0] is the nvcc path), for tests and logs.
  std::vector<std::string> command(const std::vector<std::string>& extra_flags, const std::string& arch) const;

 private:
  std::filesystem::path m_path;
  std::filesystem::path m_root;
  std::string m_identity;
  std::string m_host;
};

}  // namespace kwb::build
