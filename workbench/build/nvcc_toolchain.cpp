#include "build/nvcc_toolchain.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <regex>
#include <sstream>

#include "build/compile_cache.hpp"
#include "build/compiler_facts.hpp"
#include "build/launcher_flags.hpp"
#include "build/nvcc_diagnostics.hpp"
#include "launcher/sandbox.hpp"
#include "util/fs.hpp"

namespace kwb::build {

namespace {

namespace fs = std::filesystem;

constexpr size_t k_max_object_bytes = 256u << 20;
constexpr const char* k_source = "candidate.cu";
constexpr const char* k_object = "candidate.so";

// Runs a trusted tool of the system (no candidate input) and returns its standard output.
std::string read_output(const fs::path& tool, const std::string& args) {
  if (tool.string().find('\'') != std::string::npos) return {};
  std::string cmd = "'" + tool.string() + "' " + args + " 2>/dev/null";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

bool valid_arch(const std::string& arch) {
  static const std::regex arch_re(R"(^sm_\d{2,3}[af]?$)");
  return std::regex_match(arch, arch_re);
}

std::string first_error(const CompileResult& r) {
  for (const auto& d : r.diagnostics) {
    if (d.severity != "error") continue;
    std::string where = d.file;
    if (d.line > 0) where += ":" + std::to_string(d.line);
    if (d.line > 0 && d.col > 0) where += ":" + std::to_string(d.col);
    return where + ": " + d.message;
  }
  return {};
}

// Beside the cached object: ptxas's report of the compile that made it.
fs::path ptxas_report_path(const CompileCache& cache, const std::string& key) {
  auto p = cache.path_of(key);
  p += ".ptxas";
  return p;
}

}  // namespace

util::Result<NvccToolchain> NvccToolchain::detect(const std::string& nvcc) {
  std::error_code ec;
  fs::path given;
  if (nvcc.empty() || nvcc == "nvcc") {
    given = fs::exists("/usr/local/cuda/bin/nvcc", ec) ? fs::path("/usr/local/cuda/bin/nvcc") : fs::path("/usr/bin/nvcc");
  } else {
    given = nvcc;
  }
  if (!given.is_absolute() || !given.lexically_normal().string().starts_with("/usr/"))
    return util::fail("nvcc", "nvcc '" + nvcc + "' must be an absolute path under /usr (the sandbox binds only /usr)");
  if (!fs::exists(given, ec))
    return util::fail("nvcc", "nvcc '" + given.string() +
                                  "' not found: install the CUDA toolkit under /usr/local/cuda or set the nvcc path");
  // The real file: /usr/local/cuda is usually a link to /usr/local/cuda-<version>, and a link
  // out of /usr would not exist inside the sandbox.
  fs::path real = fs::canonical(given, ec);
  if (ec || !real.string().starts_with("/usr/"))
    return util::fail("nvcc", "nvcc '" + given.string() + "' resolves to '" + real.string() +
                                  "', outside /usr (the sandbox binds only /usr)");
  if (!fs::is_regular_file(real, ec))
    return util::fail("nvcc", "nvcc '" + real.string() + "' is not a regular file");

  static const std::regex version_re(R"(release [0-9.]+, V([0-9]+\.[0-9]+\.[0-9]+))");
  std::string version_text = read_output(real, "--version");
  std::smatch m;
  if (!std::regex_search(version_text, m, version_re))
    return util::fail("nvcc", "cannot read the version of '" + real.string() + "' (nvcc --version said: " +
                                  trim(version_text).substr(0, 200) + ")");
  // nvcc runs the host compiler "gcc" from PATH; inside the sandbox that is /usr/bin/gcc.
  std::string host = trim(read_output("/usr/bin/gcc", "-dumpfullversion"));
  if (host.empty())
    return util::fail("nvcc", "nvcc needs the host compiler /usr/bin/gcc, which is missing: install gcc and g++");

  NvccToolchain t;
  t.m_path = real;
  t.m_root = real.parent_path().parent_path();
  t.m_identity = "nvcc " + m[1].str();
  t.m_host = "gcc " + host;
  return t;
}

std::vector<std::string> NvccToolchain::base_flags(const std::string& arch) const {
  // -lineinfo as for NVRTC (build/nvrtc_compiler.cpp): sanitizer reports name the line.
  return {"-shared", "-Xcompiler", "-fPIC", "-O3", "-std=c++17", "-lineinfo", "--gpu-architecture=" + arch};
}

std::vector<std::string> NvccToolchain::command(const std::vector<std::string>& extra_flags,
                                                const std::string& arch) const {
  std::vector<std::string> argv{m_path.string()};
  const bool own_level = std::any_of(extra_flags.begin(), extra_flags.end(),
                                     [](const std::string& f) { return f.starts_with("-O"); });
  for (auto& f : base_flags(arch))
    if (!(own_level && f == "-O3")) argv.push_back(f);  // two -O levels draw an nvcc warning
  // ptxas's report of registers, spills and shared memory per kernel (compiler_facts.hpp).
  argv.insert(argv.end(), {"-Xptxas", "-v"});
  argv.insert(argv.end(), {"-o", std::string("/job/") + k_object, std::string("/job/") + k_source});
  for (const auto& f : extra_flags)
    if (f != "-lineinfo") argv.push_back(f);  // always on (base_flags)
  if (!launcher_libraries(extra_flags).empty()) {
    // Added here, never by the candidate: the .so finds cuBLAS in this toolkit inside the run
    // sandbox. RUNPATH (new dtags) rather than RPATH, on every distribution alike.
    argv.insert(argv.end(), {"-Xlinker", "-rpath=" + (m_root / "lib64").string(), "-Xlinker", "--enable-new-dtags"});
  }
  return argv;
}

util::Result<CompileResult> NvccToolchain::compile(const CompileRequest& req, const std::string& arch) const {
  if (!valid_arch(arch))
    return util::fail("arch", "GPU architecture '" + arch + "' is not of the form sm_<NN>[a|f] (e.g. sm_90a)");
  CompileResult result;
  if (auto r = check_launcher_flags(req.extra_flags); !r) {
    result.reason = r.error().what();
    result.diagnostics.push_back({req.display_name, 0, 0, "error", result.reason});
    return result;
  }
  if (auto r = util::write_file_atomic(req.job_dir / k_source, req.source); !r) return std::unexpected(r.error());

  const std::vector<std::string> argv = command(req.extra_flags, arch);

  // Compile cache: the same source with the same nvcc, host compiler, architecture and command
  // is not compiled again (the cached object came from the same sandboxed compile).
  std::optional<CompileCache> cache;
  if (!req.cache_dir.empty()) {
    cache.emplace(req.cache_dir);
    std::vector<std::string> flags(argv.begin() + 1, argv.end());
    result.cache_key = cache_key({"cuda-launcher-so", m_identity + "; host " + m_host, flags, arch, req.source});
    if (auto hit = cache->lookup(result.cache_key)) {
      auto data = util::read_file_nofollow(*hit, k_max_object_bytes);
      auto report = util::read_file_nofollow(ptxas_report_path(*cache, result.cache_key), k_max_object_bytes);
      if (data && report && util::write_file_atomic(req.job_dir / k_object, *data)) {
        result.ptxas_report = std::move(*report);
        result.ok = true;
        result.cache_hit = true;
        result.object_inside = std::string("/job/") + k_object;
        return result;
      }
    }
  }

  sandbox::Request sreq;
  sreq.bwrap = req.bwrap;
  sreq.job_dir = req.job_dir;
  sreq.profile = sandbox::compile_profile();
  sreq.profile.wall = std::chrono::milliseconds(req.timeout_ms);
  // RLIMIT_CPU counts per process (cicc on CUB uses ~10 s); never below the wall limit.
  sreq.profile.cpu_seconds = std::max(sreq.profile.cpu_seconds, (req.timeout_ms + 999) / 1000);
  // nvcc keeps its intermediate files (preprocessed source, PTX, cubin, fatbin: a few tens of
  // MB with CUB) in TMPDIR, the sandbox's private /tmp (512 MiB in the compile profile).
  sreq.env = {{"PATH", (m_path.parent_path()).string() + ":/usr/bin:/bin"},
              {"LANG", "C"},
              {"HOME", "/tmp"},
              {"TMPDIR", "/tmp"}};
  sreq.argv = argv;

  auto outcome = sandbox::run(sreq);
  if (!outcome) return std::unexpected(outcome.error());
  result.wall_ms = outcome->wall_ms;
  result.log = outcome->stderr_text + outcome->stdout_text;
  result.diagnostics = parse_nvcc_diagnostics(result.log, k_source, req.display_name, req.source);
  if (outcome->timed_out) {
    result.timed_out = true;
    result.reason = "compilation exceeded the " + std::to_string(req.timeout_ms) +
                    " ms limit (endless template or constexpr recursion?)";
    return result;
  }
  if (!outcome->ok()) {
    result.reason = "compilation failed";
    if (std::string e = first_error(result); !e.empty()) {
      result.reason = e;
    } else {  // a tool's message without a known format
      std::istringstream lines(result.log);
      for (std::string line; std::getline(lines, line);)
        if (line.find("rror") != std::string::npos || line.find("fatal") != std::string::npos) {
          result.reason += ": " + line.substr(0, 300);
          break;
        }
    }
    // A limit of the compile profile (memory, CPU time, processes, output) or the seccomp filter.
    auto limit = sandbox::breach(*outcome, "the compiler");
    if (limit.kind == sandbox::Breach::cpu_time) result.timed_out = true;
    if (limit.kind != sandbox::Breach::none) result.reason = limit.reason + " (" + result.reason + ")";
    else if (outcome->signal) result.reason += " (compiler killed by signal " + std::to_string(outcome->signal) + ")";
    if (!limit.note.empty()) result.reason += "; " + limit.note;
    return result;
  }
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(req.job_dir / k_object, ec))) {
    result.reason = "nvcc succeeded but left no shared object at /job/" + std::string(k_object);
    return result;
  }
  result.ok = true;
  result.object_inside = std::string("/job/") + k_object;
  result.ptxas_report = ptxas_report_lines(result.log);
  if (cache) {
    // The report first: a present object means a complete entry.
    if (auto r = util::write_file_atomic(ptxas_report_path(*cache, result.cache_key), result.ptxas_report); !r)
      return std::unexpected(r.error());
    // Read back without following links: the job folder is hostile after the compile.
    if (auto r = cache->store(result.cache_key, req.job_dir / k_object, k_max_object_bytes); !r) {
      result.ok = false;
      result.reason = "the compiler's output is not a regular file of at most 256 MiB: " + r.error().what();
    }
  }
  return result;
}

}  // namespace kwb::build
