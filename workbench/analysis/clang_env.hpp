#pragma once
// The parser's environment: include directories, a virtual-file-system overlay that hides every
// other file, stub headers for CUDA, and one precompiled header (PCH) per parse mode holding the
// common system headers, built once and kept in the cache directory.
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "analysis/libclang.hpp"
#include "util/error.hpp"

namespace kwb::analysis {

enum class Mode { cpu, cuda_device, cuda_host };

// The precompiled header sets: a CPU candidate that includes an intrinsics header gets the set
// with <immintrin.h> (which would triple the loading cost of the plain set). `cuda` candidates
// get the NVRTC prelude (cuda_prelude.hpp), with the half-precision and WMMA headers when they
// include them; clang's CUDA wrapper (cuda_device) is for the sources the prelude does not fit.
// `cuda-launcher` sources (cuda_host) that mention cub get the set with <cub/cub.cuh> (a CUB
// launcher parses in ~0.3 s with it instead of ~4 s; loading it costs others ~150 ms).
enum class PchSet { cpu, cpu_simd, cuda_device, cuda_host, cuda_host_cub, cuda_prelude, cuda_prelude_fp };

struct ParseArgs {
  std::vector<std::string> args;  // clang command line (without the file name)
  std::string main_file;          // virtual path of the candidate (an unsaved file)
  bool with_pch = false;
  PchSet pch_set = PchSet::cpu;
  bool prelude() const { return pch_set == PchSet::cuda_prelude || pch_set == PchSet::cuda_prelude_fp; }
};

class ClangEnv {
 public:
  // `cache_dir` empty: a private temporary directory removed when the environment goes away.
  static util::Result<std::unique_ptr<ClangEnv>> create(const Libclang& lib, std::filesystem::path cache_dir,
                                                        std::filesystem::path cuda_path);
  ~ClangEnv();
  ClangEnv(const ClangEnv&) = delete;
  ClangEnv& operator=(const ClangEnv&) = delete;

  // Empty when `mode` can be parsed here; else why not (e.g. no CUDA headers).
  std::string unavailable(Mode mode) const;
  // Arguments for a candidate; `defines` are -D/-U flags. The PCH is built on first use.
  // `wrapper`: a cuda_device source is parsed with clang's CUDA wrapper, not the prelude.
  ParseArgs args(Mode mode, const std::vector<std::string>& defines, std::string_view source, bool wrapper = false);
  // The PCH a candidate gets (chosen from its text: only a matter of speed for the CPU sets; for
  // CUDA the prelude is tried first and a source it does not parse goes to the wrapper).
  PchSet pch_set(Mode mode, std::string_view source, bool wrapper = false);
  // The PCH failed to load (stale or corrupt): rebuild it on next use, once.
  void invalidate_pch(PchSet set);
  const std::filesystem::path& dir() const { return m_dir; }

 private:
  ClangEnv(const Libclang& lib) : m_lib(lib) {}
  util::Result<void> prepare();
  std::vector<std::string> base_args(PchSet set) const;
  std::string pch_stem(PchSet set) const;
  std::string header_text(PchSet set) const;
  bool build_pch(PchSet set);
  bool pch_ready(PchSet set);   // builds the PCH on first use
  bool pch_failed(PchSet set);  // known not to build

  struct Pch {
    std::mutex mutex;
    enum class State { unknown, ok, failed } state = State::unknown;
    int rebuilds = 0;
  };

  const Libclang& m_lib;
  std::filesystem::path m_dir;  // overlay, stub headers, PCHs
  bool m_private_dir = false;
  std::filesystem::path m_cuda;  // empty: no CUDA headers
  std::string m_cuda_reason;
  int m_cudart_version = 0;  // 0: no NVRTC prelude (unknown toolkit version); the wrapper is used
  std::filesystem::path m_resource_dir;
  std::filesystem::path m_gcc_include;  // gcc's own headers (omp.h), searched after clang's
  std::mutex m_mutex;
  std::map<PchSet, std::unique_ptr<Pch>> m_pch;
};

}  // namespace kwb::analysis
