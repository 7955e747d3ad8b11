#pragma once
// SASS of a cuda-form candidate's cubin (docs/verdict.md "Compiler facts", docs/api.md
// "Artifacts"): the CUDA toolkit's nvdisasm (or cuobjdump) disassembles it inside the sandbox's
// compile profile, like NVRTC compiles it: the cubin is untrusted bytes (a hostile source can
// shape it), so no tool outside the sandbox ever reads it. The text it prints is untrusted too:
// capped here, parsed by sass_mix.hpp.
#include <filesystem>
#include <string>

#include "util/error.hpp"

namespace kwb::build {

struct DisassemblerTool {
  std::filesystem::path path;  // the real file (symlinks resolved)
  std::string kind;            // "nvdisasm" | "cuobjdump"
  std::string identity;        // "nvdisasm 13.0.88": part of the SASS cache key
};

// `given`: "" for KWB_CUDA_DISASSEMBLER where set, else the toolkit's (<toolkit>/bin/nvdisasm, else
// <toolkit>/bin/cuobjdump); "off" for none; or a path to either tool (its file name says which). An error says what is missing and
// where it was looked for; the version is read once with `--version` (trusted: no candidate input).
util::Result<DisassemblerTool> find_disassembler(const std::string& given = "",
                                                 const std::filesystem::path& toolkit = "/usr/local/cuda");

struct SassRequest {
  std::string cubin;                         // the bytes NVRTC made
  std::filesystem::path job_parent;          // a fresh job folder for the sandbox is made (and removed) here
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  int timeout_ms = 30000;
  std::filesystem::path cache_dir;           // empty: no cache (key: tool identity + cubin sha256)
};

struct SassResult {
  bool ok = false;
  std::string text;    // the SASS, when ok
  std::string reason;  // one line when !ok (the tool failed, timed out, or printed too much)
  bool cache_hit = false;
  double wall_ms = 0;
};

// SASS larger than this is refused (the text is stored with the candidate).
constexpr int64_t k_max_sass_bytes = 32ll << 20;

// Errors only for failures of the trusted side (no job folder, no bwrap); a failing tool is a
// result with ok == false.
util::Result<SassResult> disassemble(const DisassemblerTool& tool, const SassRequest& req);

}  // namespace kwb::build
