#include "support.hpp"

namespace kwb::analysis::test {
namespace {

struct Case {
  const char* name;
  const char* prelude;
  const char* body;
  const char* expect;  // substring of the message
};

class Forbidden : public ::testing::TestWithParam<Case> {};

TEST_P(Forbidden, IsAnError) {
  const auto& c = GetParam();
  auto r = run(vector_add(c.body, c.prelude));
  KWB_REQUIRE_AVAILABLE(r);
  const auto* f = find(r, "forbidden-call");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_EQ(f->severity, "error");
  EXPECT_GT(f->line, 0);
  EXPECT_NE(f->message.find(c.expect), std::string::npos) << f->message;
  EXPECT_EQ(count(r, "parse"), 0) << dump(r);
}

const Case k_cases[] = {
    {"system", "#include <cstdlib>", "std::system(\"id\");", "'system' (process)"},
    {"fork", "#include <unistd.h>", "if (fork() == 0) {}", "'fork' (process)"},
    {"execve", "#include <unistd.h>", "execve(\"/bin/sh\", nullptr, nullptr);", "'execve'"},
    {"popen", "#include <cstdio>", "popen(\"id\", \"r\");", "'popen'"},
    {"syscall", "#include <unistd.h>\n#include <sys/syscall.h>", "syscall(SYS_getpid);", "'syscall'"},
    {"fopen", "#include <cstdio>", "std::FILE* f = std::fopen(\"/etc/passwd\", \"r\"); (void)f;", "'fopen' (file)"},
    {"open", "#include <fcntl.h>", "int fd = open(\"/x\", O_RDONLY); (void)fd;", "'open' (file)"},
    {"write_fd", "#include <unistd.h>", "write(3, c, 4);", "'write' (file)"},
    {"ifstream", "#include <fstream>", "std::ifstream in(\"/etc/passwd\");", "std::basic_ifstream"},
    {"filesystem", "#include <filesystem>", "auto p = std::filesystem::current_path(); (void)p;",
     "std::filesystem::"},
    {"socket", "#include <sys/socket.h>", "int s = socket(AF_INET, SOCK_STREAM, 0); (void)s;", "'socket' (network)"},
    {"getenv", "#include <cstdlib>", "const char* e = std::getenv(\"HOME\"); (void)e;", "'getenv' (environment)"},
    {"environ", "#include <unistd.h>", "char** e = environ; (void)e;", "'environ' (environment)"},
    {"dlopen", "#include <dlfcn.h>", "void* h = dlopen(\"libc.so.6\", RTLD_NOW); (void)h;", "'dlopen' (dynamic-loading)"},
    {"dlsym", "#include <dlfcn.h>", "void* s = dlsym(RTLD_DEFAULT, \"system\"); (void)s;", "'dlsym'"},
    {"clock_gettime", "#include <ctime>", "timespec t; clock_gettime(CLOCK_MONOTONIC, &t);", "'clock_gettime' (timer)"},
    {"steady_clock", "#include <chrono>", "auto t = std::chrono::steady_clock::now(); (void)t;",
     "'std::chrono::steady_clock::now' (timer)"},
    {"high_resolution_clock", "#include <chrono>", "auto t = std::chrono::high_resolution_clock::now(); (void)t;",
     "(timer)"},
    {"rdtsc", "#include <x86intrin.h>", "unsigned long long t = __rdtsc(); (void)t;", "'__rdtsc' (timer)"},
    {"std_thread", "#include <thread>", "std::thread t([] {}); t.join();", "'std::thread' (thread)"},
    {"pthread_create", "#include <pthread.h>", "pthread_t t; pthread_create(&t, nullptr, nullptr, nullptr);",
     "'pthread_create' (thread)"},
    {"async", "#include <future>", "auto f = std::async([] { return 1; }); (void)f;", "'std::async' (thread)"},
    {"mmap_exec", "#include <sys/mman.h>",
     "void* p = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); (void)p;",
     "'mmap' (exec-memory)"},
    {"mprotect_unknown", "#include <sys/mman.h>", "mprotect(c, 4096, int(n));", "'mprotect' (exec-memory)"},
    {"own_declaration", "extern \"C\" int system(const char*);", "system(\"id\");", "'system' (process)"},
    {"function_pointer", "#include <cstdlib>", "int (*f)(const char*) = &std::system; (void)f;", "'system'"},
    {"template_dependent", "#include <cstdlib>\ntemplate <class T> void run_it(T t) { std::system(t); }", "",
     "'system'"},
};

INSTANTIATE_TEST_SUITE_P(Calls, Forbidden, ::testing::ValuesIn(k_cases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ForbiddenCall, ResolvedByDeclarationNotByName) {
  // A local variable named open, a member named time, a helper of the candidate's own named clock.
  auto r = run(vector_add("int open = 3; S s; s.time = open; c[0] = float(clock(s.time) + s.time);",
                          "#include <cstdio>\nstruct S { int time; };\nnamespace { int clock(int x) { return x; } }"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "forbidden-call"), 0) << dump(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

TEST(ForbiddenCall, HarmlessLibraryCallsAreFine) {
  auto r = run(vector_add("std::vector<float> tmp(n); std::memcpy(tmp.data(), a, sizeof(float) * n);\n"
                          "for (int64_t i = 0; i < n; ++i) c[i] = std::max(tmp[i] + b[i], std::sqrt(b[i]));",
                          "#include <algorithm>\n#include <cmath>\n#include <cstring>\n#include <vector>"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_TRUE(r.findings.empty()) << dump(r);
}

TEST(ForbiddenCall, MmapWithoutExecIsFine) {
  auto r = run(vector_add("void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);"
                          " (void)p;",
                          "#include <sys/mman.h>"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "forbidden-call"), 0) << dump(r);
}

TEST(ForbiddenCall, AsmLabelRenamingIsSeen) {
  auto r = run(vector_add("my_run(\"id\");", "extern \"C\" int my_run(const char*) __asm__(\"system\");"));
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "symbol-alias"), 1) << dump(r);
  const auto* f = find(r, "forbidden-call");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_NE(f->message.find("'my_run' (symbol 'system')"), std::string::npos) << f->message;
}

TEST(ForbiddenCall, StreamsAndEventsOnlyInLauncherHostCode) {
  std::string src = "#include <cstdint>\n#include <cuda_runtime.h>\n"
                    "extern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, "
                    "cudaStream_t stream) { cudaStream_t s; cudaStreamCreate(&s); cudaEvent_t e; "
                    "cudaEventCreate(&e); }\n";
  auto launcher = run(src, "vector_add", "cuda-launcher");
  KWB_REQUIRE_AVAILABLE(launcher);
  // Reported by launcher-streams (test_launcher_rules.cpp), not as forbidden calls.
  EXPECT_EQ(count(launcher, "forbidden-call"), 0) << dump(launcher);
  EXPECT_EQ(count(launcher, "launcher-streams"), 2) << dump(launcher);
}

TEST(ForbiddenCall, DeviceClockIsATimer) {
  auto r = run("extern \"C\" __global__ void k(float* c) { c[0] = float(clock64()); }\n", "vector_add", "cuda", "f32",
               {"k"});
  KWB_REQUIRE_AVAILABLE(r);
  EXPECT_EQ(count(r, "forbidden-call"), 1) << dump(r);
}

}  // namespace
}  // namespace kwb::analysis::test
