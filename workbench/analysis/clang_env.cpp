#include "analysis/clang_env.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "analysis/cuda_prelude.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

namespace kwb::analysis {

namespace fs = std::filesystem;

namespace {

// Common headers precompiled once per mode. Candidates may include anything else under the
// system include directories; those headers are then parsed per candidate (slower, still correct).
// <immintrin.h> is left out on purpose: with -march=native it alone triples the cost of loading
// the PCH, which every analysis pays.
constexpr const char* k_cpu_headers[] = {"algorithm", "array",   "bit",     "cfloat",      "climits",
                                         "cmath",     "cstddef", "cstdint", "cstdlib",     "cstring",
                                         "limits",    "numeric", "type_traits", "utility", "vector"};
// The wrapper's set (for `cuda` sources the NVRTC prelude does not fit, and `cuda-launcher`). Kept
// small: loading a PCH costs time in proportion to the function definitions it holds (cub and
// cooperative_groups would double the time of every analysis; candidates that include them parse them).
constexpr const char* k_cuda_headers[] = {"cstdint", "cuda_fp16.h", "cuda_bf16.h", "mma.h"};
// CUDA 13 removed these; clang 19's CUDA wrapper still includes them.
constexpr const char* k_stub_headers[] = {"texture_fetch_functions.h", "texture_indirect_functions.h"};

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// gcc's private include directory (omp.h, ...) of the newest gcc: /usr/lib/gcc/<triple>/<ver>/include.
fs::path find_gcc_include() {
  fs::path best;
  int best_major = -1;
  std::error_code ec;
  for (const auto& triple : fs::directory_iterator("/usr/lib/gcc", ec))
    for (const auto& ver : fs::directory_iterator(triple.path(), ec)) {
      int major = std::atoi(ver.path().filename().c_str());
      if (major > best_major && is_dir(ver.path() / "include")) {
        best_major = major;
        best = ver.path() / "include";
      }
    }
  return best;
}

Mode mode_of(PchSet set) {
  switch (set) {
    case PchSet::cpu:
    case PchSet::cpu_simd: return Mode::cpu;
    case PchSet::cuda_device:
    case PchSet::cuda_prelude:
    case PchSet::cuda_prelude_fp: return Mode::cuda_device;
    case PchSet::cuda_host:
    case PchSet::cuda_host_cub: return Mode::cuda_host;
  }
  return Mode::cpu;
}

}  // namespace

std::string ClangEnv::header_text(PchSet set) const {
  if (set == PchSet::cuda_prelude || set == PchSet::cuda_prelude_fp)
    return cuda_prelude(m_cudart_version, set == PchSet::cuda_prelude_fp);
  std::string text = "// kwb analysis: precompiled common headers (generated)\n";
  if (mode_of(set) == Mode::cpu)
    for (const char* h : k_cpu_headers) text += std::string("#include <") + h + ">\n";
  else
    for (const char* h : k_cuda_headers) text += std::string("#include <") + h + ">\n";
  if (set == PchSet::cpu_simd) text += "#include <immintrin.h>\n";
  if (set == PchSet::cuda_host_cub) text += "#include <cub/cub.cuh>\n";
  return text;
}

util::Result<std::unique_ptr<ClangEnv>> ClangEnv::create(const Libclang& lib, fs::path cache_dir, fs::path cuda_path) {
  std::unique_ptr<ClangEnv> env(new ClangEnv(lib));
  std::error_code ec;
  if (cache_dir.empty()) {
    std::string tmpl = (fs::temp_directory_path(ec) / "kwb-analysis-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return util::fail(tmpl, "cannot create a private temporary directory");
    env->m_dir = tmpl;
    env->m_private_dir = true;
  } else {
    // One subdirectory per libclang build and CUDA installation: their PCHs are not interchangeable.
    std::string key = util::sha256_hex(lib.version + "\n" + lib.path + "\n" + cuda_path.string()).substr(0, 12);
    env->m_dir = fs::absolute(cache_dir, ec) / ("clang" + std::to_string(lib.major) + "-" + key);
    fs::create_directories(env->m_dir, ec);
    if (ec) return util::fail(env->m_dir.string(), "cannot create the analysis cache directory: " + ec.message());
    if (fs::is_symlink(env->m_dir)) return util::fail(env->m_dir.string(), "is a symbolic link; refusing to use it");
  }
  fs::path resource = "/usr/lib/llvm-" + std::to_string(lib.major) + "/lib/clang/" + std::to_string(lib.major);
  if (is_dir(resource / "include")) env->m_resource_dir = resource;
  env->m_gcc_include = find_gcc_include();
  if (is_dir(cuda_path / "include") && fs::exists(cuda_path / "include" / "cuda_runtime.h", ec)) {
    env->m_cuda = cuda_path;
    env->m_cudart_version = cudart_version(cuda_path).value_or(0);
  } else {
    env->m_cuda_reason = "CUDA headers not found under " + cuda_path.string() +
                         ": CUDA static analysis skipped (set KWB_CUDA_PATH)";
  }
  if (auto r = env->prepare(); !r) return std::unexpected(r.error());
  return env;
}

ClangEnv::~ClangEnv() {
  if (m_private_dir) {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
}

util::Result<void> ClangEnv::prepare() {
  // Stub headers for CUDA (in their own directory, added with -isystem).
  for (const char* h : k_stub_headers) {
    fs::path p = m_dir / "stubs" / h;
    std::error_code ec;
    if (fs::exists(p, ec)) continue;
    fs::create_directories(p.parent_path(), ec);
    if (auto r = util::write_file_atomic(p, "// empty: removed in CUDA 13, still included by clang's CUDA wrapper\n"); !r)
      return r;
  }
  // Headers NVRTC has built in, for the prelude (their own directory, added with -isystem).
  for (const auto& [name, text] : nvrtc_stub_headers()) {
    fs::path p = m_dir / "nvrtc-stubs" / name;
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    if (util::read_file(p).value_or("") != text)
      if (auto r = util::write_file_atomic(p, text); !r) return r;
  }
  // gcc's <omp.h> (found through -idirafter) uses gcc 11's __malloc__(deallocator) attribute,
  // which clang rejects; this wrapper, searched first, hides the argument.
  {
    fs::path p = m_dir / "cpu-stubs" / "omp.h";
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    std::string text = "// kwb analysis: gcc's omp.h as clang can parse it (generated)\n"
                       "#define __malloc__(...) __malloc__\n#include_next <omp.h>\n#undef __malloc__\n";
    if (util::read_file(p).value_or("") != text)
      if (auto r = util::write_file_atomic(p, text); !r) return r;
  }
  // The virtual file system: these directories (mapped to themselves), nothing else.
  std::vector<std::string> roots = {"/usr/include", m_dir.string()};
  for (const char* extra : {"/usr/local/include", "/usr/lib/gcc"})
    if (is_dir(extra)) roots.push_back(extra);
  if (!m_resource_dir.empty()) roots.push_back(m_resource_dir.parent_path().string());
  if (!m_cuda.empty()) {
    roots.push_back((m_cuda / "include").string());
    std::error_code ec;
    auto real = fs::canonical(m_cuda / "include", ec);
    if (!ec && real != m_cuda / "include") roots.push_back(real.string());
  }
  nlohmann::json overlay = {{"version", 0}, {"case-sensitive", "true"}, {"fallthrough", false}};
  overlay["roots"] = nlohmann::json::array();
  for (const auto& r : roots)
    overlay["roots"].push_back({{"name", r}, {"type", "directory-remap"}, {"external-contents", r}});
  std::string text = overlay.dump(1) + "\n";
  auto existing = util::read_file(m_dir / "overlay.yaml");
  if (!existing || *existing != text)
    if (auto r = util::write_file_atomic(m_dir / "overlay.yaml", text); !r) return r;
  for (PchSet p : {PchSet::cpu, PchSet::cpu_simd, PchSet::cuda_device, PchSet::cuda_host, PchSet::cuda_host_cub,
                   PchSet::cuda_prelude, PchSet::cuda_prelude_fp})
    m_pch[p] = std::make_unique<Pch>();
  return {};
}

std::string ClangEnv::unavailable(Mode mode) const { return mode == Mode::cpu ? std::string() : m_cuda_reason; }

std::vector<std::string> ClangEnv::base_args(PchSet set) const {
  std::vector<std::string> a;
  Mode mode = mode_of(set);
  if (mode == Mode::cpu) {
    // What build::CpuToolchain passes to g++ that changes the code seen (-std, -O (__OPTIMIZE__),
    // -march=native (__AVX2__, ...)).
    a = {"-x", "c++", "-std=c++20", "-O3", "-march=native", "-isystem", (m_dir / "cpu-stubs").string()};
  } else if (set == PchSet::cuda_prelude || set == PchSet::cuda_prelude_fp) {
    // No clang CUDA wrapper: the prelude (in the PCH) includes the toolkit's headers as NVRTC does.
    a = {"-x", "cuda", "--cuda-gpu-arch=sm_90", "-nocudalib", "-nocudainc", "--cuda-path=" + m_cuda.string(),
         "-std=c++17", "--cuda-device-only", "-isystem", (m_dir / "nvrtc-stubs").string(), "-isystem",
         (m_cuda / "include").string(), "-isystem", (m_cuda / "include" / "cccl").string()};
  } else {
    a = {"-x", "cuda", "--cuda-gpu-arch=sm_90", "-nocudalib", "--cuda-path=" + m_cuda.string(), "-std=c++17",
         mode == Mode::cuda_device ? "--cuda-device-only" : "--cuda-host-only", "-isystem",
         (m_dir / "stubs").string(), "-isystem", (m_cuda / "include" / "cccl").string()};
  }
  a.insert(a.end(), {"-w", "-ferror-limit=50", "--gcc-toolchain=/usr", "-ivfsoverlay", (m_dir / "overlay.yaml").string()});
  if (!m_resource_dir.empty()) a.insert(a.end(), {"-resource-dir", m_resource_dir.string()});
  if (!m_gcc_include.empty()) a.insert(a.end(), {"-idirafter", m_gcc_include.string()});
  return a;
}

std::string ClangEnv::pch_stem(PchSet set) const {
  switch (set) {
    case PchSet::cpu: return "cpu";
    case PchSet::cpu_simd: return "cpu-simd";
    case PchSet::cuda_device: return "cuda-device";
    case PchSet::cuda_host: return "cuda-host";
    case PchSet::cuda_host_cub: return "cuda-host-cub";
    case PchSet::cuda_prelude: return "cuda-prelude";
    case PchSet::cuda_prelude_fp: return "cuda-prelude-fp";
  }
  return "?";
}

PchSet ClangEnv::pch_set(Mode mode, std::string_view source, bool wrapper) {
  if (mode == Mode::cuda_device) {
    if (wrapper || m_cudart_version == 0 || !prelude_fits(source)) return PchSet::cuda_device;
    PchSet set = prelude_fp(source) ? PchSet::cuda_prelude_fp : PchSet::cuda_prelude;
    return pch_failed(set) ? PchSet::cuda_device : set;  // the prelude exists only as a PCH
  }
  if (mode == Mode::cuda_host)  // only a matter of speed: any source parses with either set
    return source.find("cub/") != std::string_view::npos || source.find("cub.cuh") != std::string_view::npos
               ? PchSet::cuda_host_cub
               : PchSet::cuda_host;
  return source.find("intrin.h") != std::string_view::npos ? PchSet::cpu_simd : PchSet::cpu;
}

bool ClangEnv::pch_failed(PchSet set) {
  Pch& p = *m_pch.at(set);
  std::lock_guard lock(p.mutex);
  return p.state == Pch::State::failed;
}

bool ClangEnv::build_pch(PchSet set) {
  Mode mode = mode_of(set);
  std::string stem = pch_stem(set);
  fs::path header = m_dir / (stem + (mode == Mode::cpu ? ".hpp" : ".cuh"));
  fs::path pch = m_dir / (stem + ".pch");
  std::string text = header_text(set);
  auto existing = util::read_file(header);
  if (!existing || *existing != text)
    if (!util::write_file_atomic(header, text)) return false;
  std::vector<std::string> a = base_args(set);
  if (mode == Mode::cpu) {
    a[1] = "c++-header";
  } else {
    // libclang 19 crashes serialising a CUDA PCH parsed through a VFS overlay. The header text is
    // ours and names system headers only, so it is parsed without the overlay; candidates are not.
    auto at = std::find(a.begin(), a.end(), "-ivfsoverlay");
    a.erase(at, at + 2);
  }
  std::vector<const char*> argv;
  for (const auto& s : a) argv.push_back(s.c_str());
  CXIndex index = m_lib.createIndex(0, 0);
  CXTranslationUnit tu = nullptr;
  auto err = m_lib.parseTranslationUnit2(index, header.c_str(), argv.data(), int(argv.size()), nullptr, 0,
                                         CXTranslationUnit_DetailedPreprocessingRecord |
                                             CXTranslationUnit_ForSerialization,
                                         &tu);
  bool ok = err == CXError_Success && tu;
  if (ok)
    for (unsigned i = 0, n = m_lib.getNumDiagnostics(tu); i < n && ok; ++i) {
      CXDiagnostic d = m_lib.getDiagnostic(tu, i);
      if (m_lib.getDiagnosticSeverity(d) >= CXDiagnostic_Error) ok = false;
      m_lib.disposeDiagnostic(d);
    }
  if (ok) {
    // Write beside, then rename: other processes may be reading the old one.
    fs::path tmp = pch;
    tmp += ".tmp" + std::to_string(::getpid());
    ok = m_lib.saveTranslationUnit(tu, tmp.c_str(), CXSaveTranslationUnit_None) == CXSaveError_None;
    std::error_code ec;
    if (ok) fs::rename(tmp, pch, ec);
    if (ec) ok = false;
    if (!ok) fs::remove(tmp, ec);
  }
  if (tu) m_lib.disposeTranslationUnit(tu);
  m_lib.disposeIndex(index);
  return ok;
}

ParseArgs ClangEnv::args(Mode mode, const std::vector<std::string>& defines, std::string_view source, bool wrapper) {
  ParseArgs out;
  out.pch_set = pch_set(mode, source, wrapper);
  out.args = base_args(out.pch_set);
  for (const auto& d : defines) out.args.push_back(d);
  out.main_file = mode == Mode::cpu ? "/kwb-candidate/candidate.cpp" : "/kwb-candidate/candidate.cu";
  if (pch_ready(out.pch_set)) {
    out.args.insert(out.args.end(), {"-include-pch", (m_dir / (pch_stem(out.pch_set) + ".pch")).string()});
    out.with_pch = true;
  } else if (out.prelude()) {
    return args(mode, defines, source, true);  // the prelude exists only as a PCH: use the wrapper
  }
  return out;
}

bool ClangEnv::pch_ready(PchSet set) {
  Pch& p = *m_pch.at(set);
  std::lock_guard lock(p.mutex);
  if (p.state == Pch::State::unknown) {
    // A PCH left by an earlier process is tried first; clang validates it against the headers'
    // sizes and times and refuses a stale one (then invalidate_pch() rebuilds it).
    std::string stem = pch_stem(set);
    std::error_code ec;
    bool have = fs::exists(m_dir / (stem + ".pch"), ec) &&
                util::read_file(m_dir / (stem + (mode_of(set) == Mode::cpu ? ".hpp" : ".cuh"))).value_or("") ==
                    header_text(set);
    p.state = have || build_pch(set) ? Pch::State::ok : Pch::State::failed;
  }
  return p.state == Pch::State::ok;
}

void ClangEnv::invalidate_pch(PchSet set) {
  Pch& p = *m_pch.at(set);
  std::lock_guard lock(p.mutex);
  if (p.state != Pch::State::ok) return;
  if (p.rebuilds++ < 1 && build_pch(set)) return;
  p.state = Pch::State::failed;  // parse without it from now on
}

}  // namespace kwb::analysis
