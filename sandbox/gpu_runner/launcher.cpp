// `cuda-launcher` candidates in kwb-gpu-runner (docs/cuda.md): a shared object built by nvcc
// whose extern "C" host entry takes the tensors' device pointers in spec order, the int64 params,
// the double scalars and the runner's stream. It runs in this (sandboxed) process on the runner's primary context,
// so the pointers it gets are the arena's and its static CUDA runtime finds the same context.
// It is timed like a `cuda` plan (CUDA events on the runner's stream) and then checked for work it
// left on other streams: after the stream's stop event the whole context must be idle at once.
#include <dlfcn.h>
#include <sys/syscall.h>
#include <time.h>

#include <string>

#include "gpu_runner/gpu_runner.hpp"
#include "runner/entry_call.hpp"

namespace kwb::gpu {

namespace {

int64_t raw_monotonic_ns() {  // not the vDSO: the candidate's code shares this process
  timespec ts{};
  ::syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// After the stop event on the runner's stream has completed, synchronising the whole context
// takes a few microseconds; longer means the candidate left work running elsewhere. One long
// wait alone is not proof: the runner's thread can wake late when the host is busy (the trusted
// side checks outputs on every core meanwhile), which once rejected the CUB and cuBLAS baselines
// on the H200 after thousands of clean samples. Work left on another stream is left there by
// every call, so only k_escape_streak long waits in a row reject; and a timed sample is charged
// any long wait after it, so that escaping on some calls only (to break the streak) gains nothing
// while a late wake-up makes one outlier sample, which the median ignores.
constexpr int64_t k_escape_ns = 50'000;
constexpr int k_escape_streak = 3;

}  // namespace

nlohmann::json GpuRunner::load_launcher(const nlohmann::json& cmd) {
  std::string error;
  if (!init(error)) return reply_error("[no_device] " + error);
  std::string path = cmd.at("so").get<std::string>(), entry = cmd.at("entry").get<std::string>();
  if (m_so) return reply_error("a launcher is already loaded (one per session)");
  m_so = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m_so) {
    const char* e = ::dlerror();
    return reply_error(std::string("[launch] cannot load the candidate's shared object: ") + (e ? e : "?"));
  }
  m_entry = ::dlsym(m_so, entry.c_str());
  if (!m_entry)
    return reply_error("[launch] the entry '" + entry + "' is not exported by the candidate (declare it extern \"C\")");
  if (m_module) m_cu.cuModuleUnload(m_module);
  m_module = nullptr;
  m_kernels.clear();
  m_dims.clear();
  m_launcher = true;
  m_args_dirty = true;
  return {{"ok", true}, {"kernels", nlohmann::json::array()}};
}

std::string GpuRunner::prepare_launcher_args() {
  m_launcher_args.clear();
  for (size_t i = 0; i < m_buffers.size(); ++i) m_launcher_args.push_back(intptr_t(buffer_ptr(i)));
  for (int64_t p : m_params) m_launcher_args.push_back(intptr_t(p));
  m_launcher_args.push_back(reinterpret_cast<intptr_t>(m_stream));
  if (int(m_launcher_args.size()) > runner::k_max_args) return "the entry takes too many arguments";
  if (int(m_scalars.size()) > runner::k_max_reals) return "the entry takes too many scalar arguments";
  m_args_dirty = false;
  return {};
}

std::string GpuRunner::run_launcher() {
  runner::call_entry(reinterpret_cast<runner::EntryFn>(m_entry), m_launcher_args, m_scalars);
  return {};
}

std::string GpuRunner::check_no_escape(int64_t* long_wait_ns) {
  if (long_wait_ns) *long_wait_ns = 0;
  if (!m_launcher) return {};
  if (auto s = check(m_cu.cuEventSynchronize(m_stop), "[fault] the candidate failed"); !s.empty()) return s;
  int64_t t = raw_monotonic_ns();
  if (auto s = check(m_cu.cuCtxSynchronize(), "[fault] the candidate failed"); !s.empty()) return s;
  int64_t waited = raw_monotonic_ns() - t;
  if (waited <= k_escape_ns) {
    m_escape_streak = 0;
    return {};
  }
  if (long_wait_ns) *long_wait_ns = waited;
  if (++m_escape_streak < k_escape_streak) return {};
  return "[stream] work was still running on the device " + std::to_string(waited / 1000) +
         " us after everything on the given stream had finished (" + std::to_string(k_escape_streak) +
         " calls in a row): the entry must enqueue all its work on its `stream` argument (no other streams, no "
         "default stream), so that it is timed and checked";
}

}  // namespace kwb::gpu
