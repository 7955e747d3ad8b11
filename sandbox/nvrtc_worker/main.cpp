// kwb-nvrtc-worker: a warm NVRTC compile server that runs inside the sandbox's compile profile.
// It reads compile requests (one JSON line each) on CMD and answers on REPLY with one JSON header
// line followed by the raw cubin bytes (protocol.hpp, "NVRTC worker"). It never touches files:
// the trusted side writes the cubin where it belongs, so one worker can serve many jobs.
#include <dlfcn.h>
#include <nvrtc.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "protocol/protocol.hpp"

namespace {

nlohmann::json error(const std::string& text) { return {{"ok", false}, {"error", text}}; }

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= size_t(w);
  }
  return true;
}

struct Program {
  nvrtcProgram prog = nullptr;
  ~Program() {
    if (prog) nvrtcDestroyProgram(&prog);
  }
};

// The first of these markers of a cache eviction policy found in the PTX, or "". Lines marked
// evict_last can outlive the runner's L2 flush between timed samples, so such kernels are timed
// with the device idle and persisting lines reset before every sample (docs/cuda.md "Persisting
// L2 lines"). A policy reaches L2 only through an .L2::cache_hint operand (createpolicy, or a
// constant), or as an evict_last qualifier (prefetch.global.L2::evict_last; L1::evict_last too,
// whose effect on L2 is unmeasured).
std::string l2_policy_in(const std::string& ptx) {
  for (const char* what : {"evict_last", "L2::cache_hint", "createpolicy"})
    if (ptx.find(what) != std::string::npos) return what;
  return {};
}

// Compiles and replies; false when the reply pipe is gone.
bool compile(int reply_fd, const nlohmann::json& cmd) {
  std::string source = cmd.at("source").get<std::string>();
  std::string name = cmd.value("name", std::string("candidate.cu"));
  std::vector<std::string> options = cmd.at("options").get<std::vector<std::string>>();
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());

  Program p;
  nvrtcResult rc = nvrtcCreateProgram(&p.prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (rc != NVRTC_SUCCESS)
    return kwb::wire::write_line(reply_fd, error(std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(rc)));
  nvrtcResult compiled = nvrtcCompileProgram(p.prog, int(argv.size()), argv.data());
  std::string log;
  size_t log_size = 0;
  if (nvrtcGetProgramLogSize(p.prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    if (nvrtcGetProgramLog(p.prog, log.data()) != NVRTC_SUCCESS) log.clear();
    while (!log.empty() && log.back() == '\0') log.pop_back();
  }
  if (log.size() > (256u << 10)) log = log.substr(0, 256u << 10) + "\n[log truncated]\n";
  std::string cubin, l2_policy, ptx;
  if (compiled == NVRTC_SUCCESS) {
    size_t n = 0;
    if (nvrtcGetCUBINSize(p.prog, &n) != NVRTC_SUCCESS || n == 0)
      return kwb::wire::write_line(reply_fd, error("NVRTC produced no cubin (is --gpu-architecture a real sm_XX?)"));
    cubin.resize(n);
    if (nvrtcGetCUBIN(p.prog, cubin.data()) != NVRTC_SUCCESS)
      return kwb::wire::write_line(reply_fd, error("nvrtcGetCUBIN failed"));
    // NVRTC keeps the PTX of a real-architecture compile too.
    size_t ptx_size = 0;
    if (nvrtcGetPTXSize(p.prog, &ptx_size) != NVRTC_SUCCESS || ptx_size == 0)
      return kwb::wire::write_line(reply_fd, error("NVRTC kept no PTX to check for L2 cache policies"));
    ptx.resize(ptx_size);
    if (nvrtcGetPTX(p.prog, ptx.data()) != NVRTC_SUCCESS) return kwb::wire::write_line(reply_fd, error("nvrtcGetPTX failed"));
    while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
    l2_policy = l2_policy_in(ptx);
  }
  nlohmann::json header = {{"ok", true},
                           {"compiled", compiled == NVRTC_SUCCESS},
                           {"result", nvrtcGetErrorString(compiled)},
                           {"log", log},
                           {"l2_policy", l2_policy},
                           {"cubin_bytes", cubin.size()},
                           {"ptx_bytes", ptx.size()}};
  if (!kwb::wire::write_line(reply_fd, header)) return false;
  return write_all(reply_fd, cubin.data(), cubin.size()) && write_all(reply_fd, ptx.data(), ptx.size());
}

// libnvrtc opens libnvrtc-builtins by name at the first compile; inside the sandbox there is no
// ld.so.cache or LD_LIBRARY_PATH to find it, so load it from libnvrtc's own folder first.
void preload_builtins() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&nvrtcCompileProgram), &info) || !info.dli_fname) return;
  std::string dir = info.dli_fname;
  dir = dir.substr(0, dir.rfind('/') + 1);
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::string name = "libnvrtc-builtins.so." + std::to_string(major) + "." + std::to_string(minor);
  if (!::dlopen((dir + name).c_str(), RTLD_NOW | RTLD_GLOBAL)) ::dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL);
}

}  // namespace

int main(int argc, char** argv) {
  int cmd_fd = -1, reply_fd = -1;
  if (argc != 3 || std::string(argv[1]) != "--fds" || std::sscanf(argv[2], "%d,%d", &cmd_fd, &reply_fd) != 2) {
    std::fprintf(stderr, "usage: kwb-nvrtc-worker --fds CMD,REPLY (started by the workbench)\n");
    return 2;
  }
  preload_builtins();
  kwb::wire::LineReader reader(cmd_fd);
  while (true) {
    nlohmann::json cmd;
    auto st = reader.read(cmd, -1);
    if (st != kwb::wire::LineReader::Status::ok) return st == kwb::wire::LineReader::Status::closed ? 0 : 3;
    bool alive = true;
    try {
      std::string op = cmd.value("op", "");
      if (op == "version") {
        int major = 0, minor = 0;
        nvrtcVersion(&major, &minor);
        int count = 0;
        nvrtcGetNumSupportedArchs(&count);
        std::vector<int> archs(size_t(count > 0 ? count : 0));
        if (count > 0) nvrtcGetSupportedArchs(archs.data());
        alive = kwb::wire::write_line(
            reply_fd, {{"ok", true}, {"nvrtc", std::to_string(major) + "." + std::to_string(minor)}, {"archs", archs}});
      } else if (op == "compile") {
        alive = compile(reply_fd, cmd);
      } else if (op == "quit") {
        return 0;
      } else {
        alive = kwb::wire::write_line(reply_fd, error("unknown command '" + op + "'"));
      }
    } catch (const std::exception& e) {
      alive = kwb::wire::write_line(reply_fd, error(std::string("bad command: ") + e.what()));
    }
    if (!alive) return 4;
  }
}
