#include "build/cpu_toolchain.hpp"

#include <cstdio>
#include <sstream>
#include <fstream>
#include <optional>

#include "build/compile_cache.hpp"

#include "build/diagnostics.hpp"
#include "build/flags.hpp"
#include "build/vectorization_remarks.hpp"
#include "launcher/sandbox.hpp"
#include "util/fs.hpp"

namespace kwb::build {

namespace {

constexpr size_t k_max_object_bytes = 256u << 20;

// What -march=native means here: the CPU model, so a cache shared between machines never
// hands one CPU's object to another.
std::string native_target() {
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0) return "-march=native on " + line.substr(line.find(':') + 2);
  return "-march=native on unknown CPU";
}

// Runs the trusted system compiler (no candidate input) to read its version.
std::string read_version(const std::filesystem::path& cxx) {
  std::string cmd = cxx.string() + " -dumpfullversion 2>/dev/null";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[128];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// Beside the cached object: the vectorisation remarks of the compile that made it.
std::filesystem::path remarks_path(const CompileCache& cache, const std::string& key) {
  auto p = cache.path_of(key);
  p += ".remarks";
  return p;
}

// Beside the cached object: the compiler's log (its warnings), so that a cache hit reports the
// diagnostics the compile did (`kwb spec check` fails a reference that warns, hit or miss).
std::filesystem::path log_path(const CompileCache& cache, const std::string& key) {
  auto p = cache.path_of(key);
  p += ".log";
  return p;
}

}  // namespace

util::Result<CpuToolchain> CpuToolchain::detect(const std::string& cxx) {
  std::filesystem::path path = std::filesystem::path(cxx.find('/') == std::string::npos ? "/usr/bin/" + cxx : cxx).lexically_normal();
  if (!path.string().starts_with("/usr/"))
    return util::fail("cxx", "compiler '" + cxx + "' must live under /usr (the sandbox binds only /usr)");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return util::fail("cxx", "compiler '" + path.string() + "' not found: install g++ or set KWB_CXX");
  std::string version = read_version(path);
  if (version.empty()) return util::fail("cxx", "cannot read the version of '" + path.string() + "'");
  CpuToolchain t;
  t.m_path = path;
  t.m_identity = path.filename().string() + " " + version;
  t.m_target = native_target();
  return t;
}

std::vector<std::string> CpuToolchain::base_flags() const {
  return {"-std=c++20", "-O3", "-march=native", "-fPIC", "-shared", "-fno-diagnostics-color",
          "-fdiagnostics-column-unit=byte"};
}

util::Result<CompileResult> CpuToolchain::compile(const CompileRequest& req) const {
  CompileResult result;
  if (auto r = check_flags(req.extra_flags); !r) {
    result.reason = r.error().what();
    result.diagnostics.push_back({req.display_name, 0, 0, "error", result.reason});
    return result;
  }
  if (auto r = util::write_file_atomic(req.job_dir / "candidate.cpp", req.source); !r)
    return std::unexpected(r.error());

  // Compile cache: an identical source with the same toolchain, flags and target is not
  // compiled again (the cached object was produced by the same sandboxed compile).
  std::optional<CompileCache> cache;
  if (!req.cache_dir.empty()) {
    cache.emplace(req.cache_dir);
    auto flags = base_flags();
    flags.insert(flags.end(), req.trusted_flags.begin(), req.trusted_flags.end());
    flags.insert(flags.end(), req.extra_flags.begin(), req.extra_flags.end());
    if (req.vectorization_remarks)
      for (auto& f : vectorization_remark_flags(m_identity)) flags.push_back(f);
    result.cache_key = cache_key({"cpu-so", m_identity, flags, m_target, req.source});
    if (auto hit = cache->lookup(result.cache_key)) {
      auto data = util::read_file_nofollow(*hit, k_max_object_bytes);
      auto remarks = req.vectorization_remarks
                         ? util::read_file_nofollow(remarks_path(*cache, result.cache_key), k_max_object_bytes)
                         : util::Result<std::string>(std::string());
      // An entry without its log (written by a workbench that kept none) is compiled again: its
      // warnings are unknown.
      auto log = util::read_file_nofollow(log_path(*cache, result.cache_key), k_max_object_bytes);
      if (data && remarks && log && util::write_file_atomic(req.job_dir / "candidate.so", *data)) {
        result.remarks = parse_vectorization_remarks(*remarks, "candidate.cpp", req.display_name);
        result.log = *log;
        result.diagnostics = parse_diagnostics(result.log, "candidate.cpp", req.display_name);
        result.ok = true;
        result.cache_hit = true;
        result.object_inside = "/job/candidate.so";
        return result;
      }
    }
  }

  sandbox::Request sreq;
  sreq.bwrap = req.bwrap;
  sreq.job_dir = req.job_dir;
  sreq.profile = sandbox::compile_profile();
  sreq.profile.wall = std::chrono::milliseconds(req.timeout_ms);
  sreq.env = {{"PATH", "/usr/bin"}, {"LANG", "C"}, {"HOME", "/tmp"}, {"TMPDIR", "/tmp"}};
  sreq.argv.push_back(m_path.string());
  for (auto& f : base_flags()) sreq.argv.push_back(f);
  for (auto& f : req.trusted_flags) sreq.argv.push_back(f);
  for (auto& f : req.extra_flags) sreq.argv.push_back(f);
  if (req.vectorization_remarks)
    for (auto& f : vectorization_remark_flags(m_identity)) sreq.argv.push_back(f);
  sreq.argv.insert(sreq.argv.end(), {"candidate.cpp", "-o", "candidate.so"});

  auto outcome = sandbox::run(sreq);
  if (!outcome) return std::unexpected(outcome.error());
  result.wall_ms = outcome->wall_ms;
  result.log = outcome->stderr_text + outcome->stdout_text;
  result.diagnostics = parse_diagnostics(result.log, "candidate.cpp", req.display_name);
  if (outcome->timed_out) {
    result.timed_out = true;
    result.reason = "compilation exceeded the " + std::to_string(req.timeout_ms) +
                    " ms limit (endless template or constexpr recursion?)";
    return result;
  }
  if (!outcome->ok()) {
    result.reason = "compilation failed";
    bool located = false;
    for (const auto& d : result.diagnostics)
      if (d.severity == "error") {
        result.reason = d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
        located = true;
        break;
      }
    if (!located) {  // e.g. the assembler's "Error: file not found" for an .incbin
      std::istringstream lines(result.log);
      for (std::string line; std::getline(lines, line);)
        if (line.find("rror") != std::string::npos) {
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
  result.ok = true;
  result.object_inside = "/job/candidate.so";
  std::string remark_lines;
  if (req.vectorization_remarks) {
    remark_lines = vectorization_remark_lines(result.log, "candidate.cpp");
    result.remarks = parse_vectorization_remarks(remark_lines, "candidate.cpp", req.display_name);
  }
  if (cache) {
    // The remarks and the log first: a present object means a complete entry.
    if (req.vectorization_remarks)
      if (auto r = util::write_file_atomic(remarks_path(*cache, result.cache_key), remark_lines); !r)
        return std::unexpected(r.error());
    if (auto r = util::write_file_atomic(log_path(*cache, result.cache_key), result.log); !r)
      return std::unexpected(r.error());
    // Read back without following links: the job folder is hostile after the compile.
    if (auto r = cache->store(result.cache_key, req.job_dir / "candidate.so", k_max_object_bytes); !r) {
      result.ok = false;
      result.reason = "the compiler's output is not a regular file of at most 256 MiB: " + r.error().what();
    }
  }
  return result;
}

}  // namespace kwb::build
