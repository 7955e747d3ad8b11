#include "build/disassembler.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <regex>

#include "launcher/sandbox.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/ignore.hpp"

namespace kwb::build {

namespace {

namespace fs = std::filesystem;

constexpr const char* k_sass_salt = "kwb-sass-v1";

// `tool --version` (a trusted run: no candidate input).
std::string disassembler_version_text(const fs::path& tool) {
  if (tool.string().find('\'') != std::string::npos) return {};
  std::string cmd = "'" + tool.string() + "' --version 2>/dev/null";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p) && out.size() < 8192) out += buf;
    ::pclose(p);
  }
  return out;
}

util::Result<DisassemblerTool> disassembler_at(const fs::path& given) {
  std::error_code ec;
  if (!given.is_absolute()) return util::fail("disassembler", "'" + given.string() + "' is not an absolute path");
  fs::path real = fs::canonical(given, ec);
  if (ec || !fs::is_regular_file(real, ec)) return util::fail("disassembler", given.string() + " not found");
  // The version is read once per tool file and modification time (every evaluation asks).
  static std::mutex known_mutex;
  static std::map<std::string, DisassemblerTool> known;
  std::string stamp = real.string() + "\n" + given.filename().string() + "\n" +
                      std::to_string(fs::last_write_time(real, ec).time_since_epoch().count());
  {
    std::lock_guard lock(known_mutex);
    if (auto it = known.find(stamp); it != known.end()) return it->second;
  }
  DisassemblerTool t;
  t.path = real;
  std::string name = given.filename().string();
  t.kind = name.find("cuobjdump") != std::string::npos ? "cuobjdump" : "nvdisasm";
  static const std::regex version_re(R"(V([0-9]+\.[0-9]+\.[0-9]+))");
  std::string text = disassembler_version_text(real);
  std::smatch m;
  t.identity = t.kind + " " + (std::regex_search(text, m, version_re) ? m[1].str() : "(version unknown)");
  std::lock_guard lock(known_mutex);
  known.emplace(stamp, t);
  return t;
}

std::string sass_sandbox_tail(const std::string& s) {
  std::string t = s.size() > 300 ? s.substr(s.size() - 300) : s;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  for (auto& c : t)
    if (c == '\n') c = ' ';
  return t;
}

}  // namespace

util::Result<DisassemblerTool> find_disassembler(const std::string& given, const fs::path& toolkit) {
  std::string chosen = given;
  if (const char* env = std::getenv("KWB_CUDA_DISASSEMBLER"); chosen.empty() && env && *env) chosen = env;
  if (chosen == "off") return util::fail("disassembler", "SASS is turned off (disassembler \"off\")");
  if (!chosen.empty()) return disassembler_at(chosen);
  std::error_code ec;
  for (const char* name : {"nvdisasm", "cuobjdump"})
    if (fs::exists(toolkit / "bin" / name, ec)) return disassembler_at(toolkit / "bin" / name);
  return util::fail("disassembler", "no CUDA disassembler on this machine (neither nvdisasm nor cuobjdump under " +
                                        (toolkit / "bin").string() +
                                        "): install NVIDIA's cuda-nvdisasm package of the toolkit's version for SASS");
}

util::Result<SassResult> disassemble(const DisassemblerTool& tool, const SassRequest& req) {
  SassResult r;
  std::string key;
  if (!req.cache_dir.empty()) {
    key = util::sha256_hex(std::string(k_sass_salt) + "\n" + tool.identity + "\n" + util::sha256_hex(req.cubin));
    if (auto hit = util::read_file_nofollow(req.cache_dir / (key + ".sass"), size_t(k_max_sass_bytes))) {
      r.ok = true;
      r.cache_hit = true;
      r.text = std::move(*hit);
      return r;
    }
  }
  auto job = util::make_unique_dir(req.job_parent, "sass-");
  if (!job) return std::unexpected(job.error());
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{*job};
  if (auto w = util::write_file_atomic(*job / "kernel.cubin", req.cubin); !w) return std::unexpected(w.error());

  sandbox::Request sreq;
  sreq.bwrap = req.bwrap;
  sreq.job_dir = *job;
  if (!tool.path.string().starts_with("/usr/"))  // the sandbox has /usr; a tool elsewhere is bound read-only
    sreq.binds.push_back({tool.path.parent_path(), tool.path.parent_path().string(), false});
  sreq.profile = sandbox::compile_profile();
  sreq.profile.wall = std::chrono::milliseconds(req.timeout_ms);
  sreq.profile.cpu_seconds = std::max(1, (req.timeout_ms + 999) / 1000);
  sreq.profile.output_bytes = k_max_sass_bytes;
  sreq.env = {{"PATH", "/usr/bin:/bin"}, {"LANG", "C"}, {"HOME", "/tmp"}, {"TMPDIR", "/tmp"}};
  if (tool.kind == "cuobjdump") sreq.argv = {tool.path.string(), "--dump-sass", "/job/kernel.cubin"};
  else sreq.argv = {tool.path.string(), "-c", "/job/kernel.cubin"};
  auto outcome = sandbox::run(sreq);
  if (!outcome) return std::unexpected(outcome.error());
  r.wall_ms = outcome->wall_ms;
  if (outcome->timed_out) {
    r.reason = tool.kind + " did not finish within " + std::to_string(req.timeout_ms) + " ms";
    return r;
  }
  if (outcome->stdout_truncated) {
    r.reason = tool.kind + " printed more than " + std::to_string(k_max_sass_bytes >> 20) + " MiB of SASS (not kept)";
    return r;
  }
  if (!outcome->ok()) {
    r.reason = tool.kind + " failed (" +
               (outcome->signal ? "signal " + std::to_string(outcome->signal) : "exit " + std::to_string(outcome->exit_code)) +
               ")" + (outcome->stderr_text.empty() ? "" : ": " + sass_sandbox_tail(outcome->stderr_text));
    return r;
  }
  r.ok = true;
  r.text = std::move(outcome->stdout_text);
  if (!key.empty()) {
    std::error_code ec;
    fs::create_directories(req.cache_dir, ec);
    util::ignore(util::write_file_atomic(req.cache_dir / (key + ".sass"), r.text),
                 "caching a disassembly: a failed write only costs a re-run");
  }
  return r;
}

}  // namespace kwb::build
