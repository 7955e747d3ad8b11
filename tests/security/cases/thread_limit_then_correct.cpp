// kwb-expect: op=vector_add status=sandbox_violation reason="tried to start more processes or threads" needs=cgroup
// Issue 15 #13: starts threads until the process limit refuses one, lets them go, then computes
// the right answer. The refused thread is an attempt on the sandbox's limits even though the
// candidate carries on: it must reach the verdict.
#include <pthread.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

static void* idle(void* stop) {
  while (!*static_cast<volatile bool*>(stop)) usleep(1000);
  return nullptr;
}

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    static volatile bool stop = false;
    std::vector<pthread_t> threads;
    for (int i = 0; i < 4096; ++i) {
      pthread_t t;
      if (pthread_create(&t, nullptr, idle, const_cast<bool*>(&stop)) != 0) break;
      threads.push_back(t);
    }
    stop = true;
    for (pthread_t t : threads) pthread_join(t, nullptr);
  }
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
