#pragma once
// What a toolchain that builds a candidate into a shared object is asked and answers: shared by
// the g++/clang++ toolchain for cpu candidates (cpu_toolchain.hpp) and the nvcc toolchain for
// cuda-launcher candidates (nvcc_toolchain.hpp).
#include <filesystem>
#include <string>
#include <vector>

#include "core/verdict.hpp"

namespace kwb::build {

struct CompileRequest {
  std::string source;                 // candidate source text
  std::string display_name;           // name used in diagnostics (the user's file)
  std::filesystem::path job_dir;      // host folder, bound at /job in the sandbox
  std::vector<std::string> extra_flags;  // checked by check_flags (cpu) / check_launcher_flags (nvcc)
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  int timeout_ms = 60000;
  std::filesystem::path cache_dir;  // empty: no compile cache
  // The workbench's own flags (not the candidate's, so not checked): e.g. "-I/job" for the
  // reference interface a spec's reference is compiled against.
  std::vector<std::string> trusted_flags = {};
  // cpu candidates: ask for the compiler's vectorisation remarks (vectorization_remarks.hpp).
  bool vectorization_remarks = false;
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
  std::vector<core::Diagnostic> remarks;  // vectorisation remarks when asked (kept by the cache too)
  std::string ptxas_report;    // nvcc: ptxas's -v report (compiler_facts.hpp; kept by the cache too)
};

}  // namespace kwb::build
