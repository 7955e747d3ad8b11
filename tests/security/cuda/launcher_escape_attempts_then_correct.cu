// kwb-expect: op=vector_add status=sandbox_violation reason="seccomp filter" args="--bench n1M"
// Issue 15 #13, the H200 report itself: a cuda-launcher whose host code reads /proc/1/environ and
// /etc/shadow (not there), writes under /tmp (private), opens an AF_INET socket, then launches a
// correct kernel. Contained, it was `accepted`; the GPU runner now runs candidates under the
// strict filter too, so the socket call kills it and reaches the verdict (named from /dev/kmsg
// where it is readable: "for calling socket").
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void vadd(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n, cudaStream_t stream) {
  char buf[256];
  const char* paths[] = {"/proc/1/environ", "/etc/shadow"};
  for (const char* path : paths) {
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
      (void)!read(fd, buf, sizeof buf);
      close(fd);
    }
  }
  if (FILE* f = std::fopen("/tmp/kwb-pwn-note", "w")) std::fclose(f);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s >= 0) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(9);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    (void)!connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    close(s);
  }
  if (n > 0) vadd<<<264, 256, 0, stream>>>(a, b, c, n);
}
