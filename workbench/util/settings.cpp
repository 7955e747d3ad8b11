#include "util/settings.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace kwb::util {

namespace {
const SettingInfo k_settings[] = {
    {"specs-dir", "KWB_SPECS_DIR", "", "Operator specs folder (default: <source>/specs)"},
    {"specs", "KWB_SPECS", "",
     "More spec folders, searched before the library and specs-dir (repeat the flag; the variable: ':'-separated)"},
    {"kernels-dir", "KWB_KERNELS_DIR", "", "Shipped kernel library folder (default: <source>/kernels)"},
    {"workspace", "KWB_WORKSPACE", "", "Runtime state: kwb.db, jobs/, cache/ (default: <source>/workspace)"},
    {"library", "KWB_LIBRARY", "<workspace>/library",
     "Library git repository, made from kernels-dir when absent"},
    {"auto-promote", "KWB_AUTO_PROMOTE", "none", "Ops whose winners are promoted without review: 'none', 'all' or a comma list"},
    {"runner", "KWB_RUNNER", "", "Path of kwb-runner (default: beside the kwb executable)"},
    {"bwrap", "KWB_BWRAP", "/usr/bin/bwrap", "bubblewrap executable used by the sandbox"},
    {"cxx", "KWB_CXX", "g++", "C++ compiler for cpu candidates (g++ or clang++)"},
    {"time-budget-ms", "KWB_TIME_BUDGET_MS", "1000", "Timing budget per bench workload, milliseconds"},
    {"decide-budget-ms", "KWB_DECIDE_BUDGET_MS", "3000",
     "Interleaved timing against the incumbent per bench workload in the decide stage, milliseconds at most"},
    {"gpu-clock", "KWB_GPU_CLOCK", "cupti",
     "Sample clock of GPU candidates: 'cupti' (the device's own timestamps of the work; CUDA events where "
     "CUPTI is missing) or 'events' (CUDA events around the launches)"},
    {"compile-timeout-ms", "KWB_COMPILE_TIMEOUT_MS", "60000", "Wall-clock limit of a sandboxed compile"},
    {"run-timeout-ms", "KWB_RUN_TIMEOUT_MS", "10000", "Wall-clock limit of one runner command (call or timing batch)"},
    {"reference-cache", "KWB_REFERENCE_CACHE", "<workspace>/cache/reference",
     "Compiled references (content-addressed; may be shared between workspaces)"},
    {"calibration-cache", "KWB_CALIBRATION_CACHE", "",
     "This machine's CPU calibration, shared by its workspaces: a file, or 'off' (default: "
     "$XDG_CACHE_HOME/kwb/calibrations.json, else ~/.cache/kwb/calibrations.json)"},
    {"reference-timeout-ms", "KWB_REFERENCE_TIMEOUT_MS", "600000",
     "Wall-clock limit of a spec's trusted reference on one workload (longer: an error that blames the spec)"},
    {"threads", "KWB_THREADS", "1", "Threads a cpu candidate may use (OMP_NUM_THREADS in the runner)"},
    {"run-memory-mb", "KWB_RUN_MEMORY_MB", "4096", "Memory a running candidate may use beyond its buffers, MiB"},
    // Where the device stages run (docs/fleet.md).
    {"gpus", "KWB_GPUS", "all",
     "GPUs kwb serve times candidates on, one timing lane each: 'all', or a comma list of ordinals in PCI bus "
     "order (0,2,3); the others are left alone"},
    {"executor", "KWB_EXECUTOR", "local",
     "Where compiled candidates are validated and timed: 'local' (this machine's devices) or 'slurm' (one Slurm "
     "job per candidate running kwb worker)"},
    {"fleet-dir", "KWB_FLEET_DIR", "<workspace>/fleet",
     "Slurm: the job folders (candidate, worker result), on storage every node mounts at the same path"},
    {"worker-dir", "KWB_WORKER_DIR", "/tmp/kwb-worker",
     "kwb worker: node-local folder for its sandbox jobs, caches and calibration"},
    {"slurm-partition", "KWB_SLURM_PARTITION", "", "Slurm partition of cpu candidates' jobs (empty: the cluster's default)"},
    {"slurm-gpu-partition", "KWB_SLURM_GPU_PARTITION", "",
     "Slurm partition of cuda candidates' jobs, which ask for --gres=gpu:1 (empty: the cluster's default)"},
    {"slurm-device-classes", "KWB_SLURM_DEVICE_CLASSES", "",
     "Slurm: the device classes a submission may ask for and their partitions, CLASS=PARTITION,... "
     "(cpu-x86_64-v3=cpu,cuda-sm_90=h200; empty: none can be asked for)"},
    {"slurm-time-limit-min", "KWB_SLURM_TIME_LIMIT_MIN", "30",
     "Slurm time limit of a candidate's job, minutes (past it twice: a time_limit verdict)"},
    {"slurm-max-tries", "KWB_SLURM_MAX_TRIES", "3",
     "Submissions of a candidate whose job the cluster loses (node failure, killed worker) before an error verdict"},
    {"slurm-exclusive", "KWB_SLURM_EXCLUSIVE", "0", "1: cpu candidates' jobs get a whole node to time on (--exclusive)"},
    {"slurm-sbatch-args", "KWB_SLURM_SBATCH_ARGS", "", "More sbatch arguments, space-separated (--account=A --qos=Q)"},
    {"slurm-bin-dir", "KWB_SLURM_BIN_DIR", "", "Folder of sbatch, squeue and scancel (empty: found on PATH)"},
    {"slurm-poll-ms", "KWB_SLURM_POLL_MS", "500", "How often the daemon looks at its Slurm jobs and their results, ms"},
};
}  // namespace

std::span<const SettingInfo> setting_table() { return k_settings; }

std::string source_dir() { return KWB_SOURCE_DIR; }

std::string executable_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

Settings Settings::from_environment() {
  Settings s;
  for (const auto& info : k_settings) {
    std::string value = info.default_value;
    if (const char* env = std::getenv(info.env); env && *env) value = env;
    s.m_values[info.name] = value;
  }
  auto fill = [&](const char* name, std::string computed) {
    if (s.m_values[name].empty()) s.m_values[name] = std::move(computed);
  };
  fill("specs-dir", source_dir() + "/specs");
  fill("kernels-dir", source_dir() + "/kernels");
  fill("workspace", source_dir() + "/workspace");
  fill("runner", executable_dir() + "/kwb-runner");
  fill("calibration-cache", [] {  // XDG's cache folder, else ~/.cache; none without either
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return std::string(xdg) + "/kwb/calibrations.json";
    if (const char* home = std::getenv("HOME"); home && *home == '/') return std::string(home) + "/.cache/kwb/calibrations.json";
    return std::string("off");
  }());
  return s;
}

const std::string& Settings::get(const std::string& name) const {
  auto it = m_values.find(name);
  if (it == m_values.end()) throw std::logic_error("unknown setting " + name);
  if (m_readable && !m_readable->contains(name))
    throw std::logic_error("setting '" + name + "' is read by '" + m_reader +
                           "', which does not declare it (app/setting_flags.cpp)");
  return it->second;
}

void Settings::limit_to(std::set<std::string> names, std::string reader) {
  for (const auto& n : names)
    if (!m_values.contains(n)) throw std::logic_error(reader + " declares an unknown setting " + n);
  m_readable = std::move(names);
  m_reader = std::move(reader);
}

int64_t Settings::get_int(const std::string& name) const {
  const std::string& v = get(name);
  size_t used = 0;
  int64_t out = 0;
  try {
    out = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size())
    throw std::invalid_argument("setting " + name + ": expected an integer, got \"" + v + "\"");
  return out;
}

void Settings::set(const std::string& name, std::string value) {
  if (!m_values.contains(name)) throw std::logic_error("unknown setting " + name);
  m_values[name] = std::move(value);
}

}  // namespace kwb::util
