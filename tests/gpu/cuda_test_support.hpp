#pragma once
// Helpers shared by the CUDA tests (tests/unit/cuda, tests/gpu): is a GPU here, where the
// binaries and the source tree are (overridable with KWB_TEST_BIN_DIR / KWB_TEST_SOURCE_DIR so
// that tests built on one machine run on the GPU machine), running `kwb eval` and reading the
// `// kwb-expect:` line of a corpus file.
#include <dlfcn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kwb::cudatest {

inline std::filesystem::path source_dir() {
  const char* e = std::getenv("KWB_TEST_SOURCE_DIR");
  return e && *e ? e : KWB_TEST_SOURCE_DIR;
}
inline std::filesystem::path bin_dir() {
  const char* e = std::getenv("KWB_TEST_BIN_DIR");
  return e && *e ? e : KWB_TEST_BIN_DIR;
}

// A usable CUDA device: the driver loads, cuInit succeeds and reports at least one device.
inline bool gpu_available() {
  static const bool available = [] {
    void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
    auto init = reinterpret_cast<int (*)(unsigned)>(::dlsym(lib, "cuInit"));
    auto count = reinterpret_cast<int (*)(int*)>(::dlsym(lib, "cuDeviceGetCount"));
    int n = 0;
    return init && count && init(0) == 0 && count(&n) == 0 && n > 0;
  }();
  return available;
}

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One workspace per test process (the GPU calibration is measured once per process).
inline const std::filesystem::path& workspace() {
  static const std::filesystem::path dir = [] {
    char tmpl[] = "/tmp/kwb-cuda-test-ws-XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    return std::filesystem::path(d ? d : "/tmp/kwb-cuda-test-ws");
  }();
  return dir;
}

struct EvalResult {
  int exit_code = -1;
  nlohmann::json verdict;
  std::string raw;
};

// Runs a shell command that prints a verdict (`kwb eval ... --json`) and parses it.
inline EvalResult run_for_verdict(const std::string& cmd) {
  EvalResult e;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return e;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) e.raw.append(buf, n);
  int st = ::pclose(p);
  e.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  e.verdict = nlohmann::json::parse(e.raw, nullptr, false);
  return e;
}

inline EvalResult kwb_eval(const std::string& source, const std::string& extra) {
  return run_for_verdict((bin_dir() / "kwb").string() + " eval " + shell_quote(source) + " --json " + extra +
                         " --specs-dir " + shell_quote((source_dir() / "specs").string()) + " --workspace " +
                         shell_quote(workspace().string()));
}

// `// kwb-expect: op=OP status=STATUS reason="..." [diagnostic="..."] [args="..."] [stage=compile]`
// stage=compile: the verdict is reached before any GPU work, so it holds on machines without one.
struct Case {
  std::string file, op, status, reason, diagnostic, args, stage;
};

inline std::vector<Case> corpus(const std::filesystem::path& dir, const std::string& ext) {
  std::vector<Case> out;
  static const std::regex field(R"((\w+)=(?:\"([^\"]*)\"|(\S+)))");
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ext) continue;
    std::string first = read_text(e.path()).substr(0, 400);
    first = first.substr(0, first.find('\n'));
    Case c;
    c.file = e.path().string();
    for (std::sregex_iterator it(first.begin(), first.end(), field), end; it != end; ++it) {
      std::string k = (*it)[1], v = (*it)[2].matched ? (*it)[2].str() : (*it)[3].str();
      if (k == "op") c.op = v;
      else if (k == "status") c.status = v;
      else if (k == "reason") c.reason = v;
      else if (k == "diagnostic") c.diagnostic = v;
      else if (k == "args") c.args = v;
      else if (k == "stage") c.stage = v;
    }
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.file < b.file; });
  return out;
}

struct Shipped {
  std::string source, op, variant;
};

// Every kernels/<op>/cuda/<name>.cu with its .json.
inline std::vector<Shipped> shipped_cuda_kernels() {
  std::vector<Shipped> out;
  for (const auto& meta : std::filesystem::recursive_directory_iterator(source_dir() / "kernels")) {
    if (meta.path().extension() != ".json" || meta.path().parent_path().filename() != "cuda") continue;
    auto j = nlohmann::json::parse(read_text(meta.path()), nullptr, false);
    if (j.is_discarded()) continue;
    auto src = meta.path();
    src.replace_extension(".cu");
    out.push_back({src.string(), j.value("op", ""), j.value("variant", "")});
  }
  std::sort(out.begin(), out.end(), [](const Shipped& a, const Shipped& b) { return a.source < b.source; });
  return out;
}

// gtest prints parameters with these (instead of their bytes).
inline void PrintTo(const Case& c, std::ostream* os) { *os << std::filesystem::path(c.file).filename().string(); }
inline void PrintTo(const Shipped& k, std::ostream* os) { *os << std::filesystem::path(k.source).filename().string(); }

inline std::string test_name(std::string n) {
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

}  // namespace kwb::cudatest
