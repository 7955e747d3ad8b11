#pragma once
// The trusted side of one kwb-nvrtc-worker: a warm NVRTC process in the sandbox's compile
// profile (bubblewrap, no network, read-only /usr with the CUDA toolkit) that compiles one
// program per request. Requests and replies travel over two pipes (protocol.hpp, "NVRTC worker");
// a request that runs past its deadline kills the worker (the next request starts a fresh one).
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace kwb::sandbox {
class Process;
}

namespace kwb::build {

struct NvrtcWorkerConfig {
  std::filesystem::path worker;       // host path of kwb-nvrtc-worker
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  std::filesystem::path scratch_parent;  // an empty job folder for the sandbox is made here
  // The CUDA toolkit (libnvrtc, headers). Under /usr it is already visible in the sandbox; a
  // toolkit elsewhere (or a /usr/local/cuda symlink pointing elsewhere) is bound read-only.
  std::filesystem::path toolkit = "/usr/local/cuda";
};

struct NvrtcReply {
  bool compiled = false;   // NVRTC succeeded (cubin holds the code)
  bool timed_out = false;  // the deadline passed; the worker was killed
  std::string log;         // NVRTC's program log
  std::string result;      // NVRTC's result code name
  std::string cubin;
  std::string ptx;         // the PTX NVRTC made the cubin from
  std::string l2_policy;   // the PTX's first L2 eviction-policy instruction ("createpolicy"), or ""
};

class NvrtcWorker {
 public:
  static util::Result<std::unique_ptr<NvrtcWorker>> start(const NvrtcWorkerConfig& cfg);
  ~NvrtcWorker();

  // NVRTC's version ("13.0") and the architectures it supports.
  util::Result<std::string> version(int timeout_ms);
  // One compile. Errors are failures of the worker itself (died, corrupted reply); a compile
  // error is a reply with compiled == false, a deadline a reply with timed_out == true.
  util::Result<NvrtcReply> compile(const std::string& name, const std::string& source,
                                   const std::vector<std::string>& options, int timeout_ms);
  bool alive() const { return m_alive; }
  int requests() const { return m_requests; }

 private:
  NvrtcWorker() = default;
  util::Result<void> fill(std::chrono::steady_clock::time_point deadline, bool& timed_out);
  util::Result<std::string> read_line(std::chrono::steady_clock::time_point deadline, bool& timed_out);
  util::Result<std::string> read_bytes(size_t n, std::chrono::steady_clock::time_point deadline, bool& timed_out);
  util::Error died(const std::string& during);

  std::unique_ptr<sandbox::Process> m_process;
  std::filesystem::path m_scratch;
  int m_cmd_w = -1, m_reply_r = -1;
  std::string m_buffer;
  bool m_alive = false;
  int m_requests = 0;
};

}  // namespace kwb::build
