#include "build/cpu_toolchain.hpp"

#include <cstdio>

#include "build/diagnostics.hpp"
#include "build/flags.hpp"
#include "launcher/sandbox.hpp"
#include "util/fs.hpp"

namespace kwb::build {

namespace {

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

  sandbox::Request sreq;
  sreq.bwrap = req.bwrap;
  sreq.job_dir = req.job_dir;
  sreq.profile = sandbox::compile_profile();
  sreq.profile.wall = std::chrono::milliseconds(req.timeout_ms);
  sreq.env = {{"PATH", "/usr/bin"}, {"LANG", "C"}, {"HOME", "/tmp"}, {"TMPDIR", "/tmp"}};
  sreq.argv.push_back(m_path.string());
  for (auto& f : base_flags()) sreq.argv.push_back(f);
  for (auto& f : req.extra_flags) sreq.argv.push_back(f);
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
    for (const auto& d : result.diagnostics)
      if (d.severity == "error") {
        result.reason = d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
        break;
      }
    if (outcome->signal) result.reason += " (compiler killed by signal " + std::to_string(outcome->signal) + ")";
    return result;
  }
  result.ok = true;
  result.object_inside = "/job/candidate.so";
  return result;
}

}  // namespace kwb::build
