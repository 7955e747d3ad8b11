// A CUDA program for the sandbox's GPU profile (kwb-sandbox --gpu). Not part of the CPU suite:
// it is compiled with nvcc on the development machine and run on the GPU machine (commands in
// docs/security.md, section "GPU pass-through").
//   sandbox_probe honest    run a vector add on the GPU and check it: prints "GPU OK ..." and exits 0
//   sandbox_probe hostile   the same, after trying what a hostile CUDA candidate's host code might:
//                           network, host files, the evaluator's environment, kernel knobs, other
//                           processes; prints HELD or LEAKED per attempt; exits 0 when all held, 3 if not
//   sandbox_probe seccomp   the GPU works, then ptrace(): the seccomp filter kills it (SIGSYS)
// Uses the runtime API (static cudart) so that only the driver (libcuda, under /usr) is needed.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

__global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static int leaks = 0;

static void held(const char* what, bool ok, const std::string& detail) {
  std::printf("%s: %s (%s)\n", ok ? "HELD" : "LEAKED", what, detail.c_str());
  if (!ok) ++leaks;
}

static std::string errno_text() { return std::strerror(errno); }

static void attacks() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  held("tcp socket", s < 0, s < 0 ? errno_text() : "socket created");
  if (s >= 0) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(443);
    inet_pton(AF_INET, "1.1.1.1", &a.sin_addr);
    int c = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
    held("tcp connect 1.1.1.1:443", c != 0, c != 0 ? errno_text() : "connected");
  }
  for (const char* p : {"/etc/passwd", "/etc/shadow", "/root/.bash_history", "/proc/1/root/etc/passwd"}) {
    int fd = open(p, O_RDONLY);
    held((std::string("read ") + p).c_str(), fd < 0, fd < 0 ? errno_text() : "opened");
  }
  char env[4096] = {};
  int fd = open("/proc/1/environ", O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, env, sizeof env - 1) : -1;
  held("/proc/1/environ is empty", n <= 0, std::to_string(n) + " bytes");
  std::string all;
  for (char** e = environ; *e; ++e) all += std::string(*e) + " ";
  held("environment is the one the launcher set", all.find("SECRET") == std::string::npos, all);
  char value[256] = {};
  int in = open("/proc/sys/kernel/core_pattern", O_RDONLY);
  ssize_t got = in >= 0 ? read(in, value, sizeof value - 1) : -1;
  int out = open("/proc/sys/kernel/core_pattern", O_WRONLY);
  bool wrote = out >= 0 && got > 0 && write(out, value, size_t(got)) == got;  // writes back the same value
  held("write /proc/sys/kernel/core_pattern", !wrote, wrote ? "written" : errno_text());
  int w = open("/sys/kernel/mm/transparent_hugepage/enabled", O_WRONLY);
  held("write /sys", w < 0, w < 0 ? errno_text() : "opened for writing");
  int visible = 0;
  for (int pid = 1; pid < 65536; ++pid)
    if (kill(pid, 0) == 0) ++visible;
  held("only the sandbox's processes are visible", visible <= 3, std::to_string(visible) + " pids");
}

static int gpu() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("GPU FAILED: %s (%d devices)\n", cudaGetErrorString(e), count);
    return 2;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const int n = 1 << 20;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = 2.0f * float(i);
  }
  float *da, *db, *dc;
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dc, n * sizeof(float));
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  vadd<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  e = cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != 3.0f * float(i);
  std::printf("GPU %s: %s, sm_%d%d, %d SMs, vector add of %d floats: %d wrong (%s)\n", wrong || e ? "FAILED" : "OK",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, n, wrong, cudaGetErrorString(e));
  return wrong || e ? 2 : 0;
}

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "honest";
  std::printf("uid %d, gid %d\n", int(getuid()), int(getgid()));
  if (mode == "hostile") attacks();
  int rc = gpu();
  std::fflush(stdout);
  if (mode == "seccomp") {
    long r = ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr);
    std::printf("LEAKED: ptrace returned %ld\n", r);
    return 3;
  }
  if (mode == "hostile" && rc == 0) return leaks ? 3 : 0;
  return rc;
}
