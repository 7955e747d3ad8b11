#include "eval/tool_pass.hpp"

#include <cstdlib>

namespace kwb::eval {

namespace fs = std::filesystem;

namespace {

fs::path cuda_root() {
  const char* p = std::getenv("KWB_CUDA_PATH");
  return p && *p ? fs::path(p) : fs::path("/usr/local/cuda");
}

ToolBinary find_tool(const char* env, const char* file) {
  std::error_code ec;
  if (const char* p = std::getenv(env); p && *p) {
    if (fs::exists(p, ec)) return {fs::path(p), ""};
    return {{}, std::string(env) + " names " + p + ", which does not exist"};
  }
  fs::path at = cuda_root() / "bin" / file;
  if (fs::exists(at, ec)) return {at, ""};
  return {{}, std::string(file) + " not found at " + at.string() + " (install the CUDA toolkit's " + file +
                  " or set " + env + ")"};
}

// The tool as the sandbox sees it, and its binds: a tool under /usr is seen where it is (/usr is
// bound read-only); another (a test's stand-in, a tool installed elsewhere) has its folder bound
// read-only at /kwb/tool, so what lies beside it comes along. Nsight Compute's own files live in
// /opt/nvidia/nsight-compute (the toolkit's ncu is a wrapper that looks there): /opt/nvidia is bound too.
std::pair<std::string, std::vector<std::pair<fs::path, std::string>>> inside(const ToolBinary& t) {
  std::vector<std::pair<fs::path, std::string>> binds;
  std::error_code ec;
  if (fs::exists("/opt/nvidia", ec)) binds.emplace_back("/opt/nvidia", "/opt/nvidia");
  std::string path = t.host.string();
  if (path.starts_with("/usr/")) return {path, binds};
  binds.emplace_back(t.host.parent_path(), "/kwb/tool");
  return {"/kwb/tool/" + t.host.filename().string(), binds};
}

}  // namespace

ToolBinary find_ncu() { return find_tool("KWB_NCU", "ncu"); }
ToolBinary find_compute_sanitizer() { return find_tool("KWB_COMPUTE_SANITIZER", "compute-sanitizer"); }

ToolInvocation ncu_invocation(const ToolBinary& ncu, const std::vector<std::string>& options, int launches) {
  ToolInvocation inv;
  inv.name = "ncu";
  inv.report_file = "ncu.csv";
  auto [path, binds] = inside(ncu);
  inv.binds = std::move(binds);
  inv.argv = {path, "--csv", "--page", "raw", "--log-file", "/job/" + inv.report_file, "--kernel-name-base",
              "function", "--kernel-name", "regex:^(?!kwb_)", "--launch-count", std::to_string(launches),
              "--target-processes", "all"};
  inv.argv.insert(inv.argv.end(), options.begin(), options.end());
  return inv;
}

ToolInvocation sanitizer_invocation(const ToolBinary& sanitizer, const std::string& tool, int print_limit) {
  ToolInvocation inv;
  inv.name = tool;
  inv.report_file = "sanitizer-" + tool + ".log";
  auto [path, binds] = inside(sanitizer);
  inv.binds = std::move(binds);
  // --report-api-errors no: the runner probes a kernel's parameters with cuFuncGetParamInfo until
  // it answers CUDA_ERROR_INVALID_VALUE (gpu_setup.cpp): an error by design, not the candidate's.
  inv.argv = {path, "--tool", tool, "--log-file", "/job/" + inv.report_file, "--print-limit",
              std::to_string(print_limit), "--kernel-name-exclude", "kns=kwb_", "--report-api-errors", "no"};
  inv.separate_buffers = true;
  return inv;
}

}  // namespace kwb::eval
