// kwb-expect: op=vector_add status=sandbox_violation reason="timed by the workbench" timed=yes args="--bench n1M"
// Issue 15 #12: returns at once and leaves the work to a thread of its own, so the timed call is
// empty and the outputs are written while the trusted side flushes the caches for the next call.
// The first two calls on a bench-sized vector (validation and its determinism check) are done
// in place so that the outputs check out. The runner's CPU time (all threads) shows the work.
#include <atomic>
#include <cstdint>
#include <thread>

namespace {
struct Job {
  const float *a, *b;
  float* c;
  int64_t n;
};
std::atomic<Job*> g_job{nullptr};

void worker() {
  for (;;) {
    Job* j = g_job.exchange(nullptr);
    if (!j) {
      std::this_thread::yield();
      continue;
    }
    for (int64_t i = 0; i < j->n; ++i) j->c[i] = j->a[i] + j->b[i];
  }
}
}  // namespace

extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  static int big_calls = 0;
  if (n < 1000000 || ++big_calls <= 2) {
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    return;
  }
  static std::thread t(worker);
  static Job job;
  job = {a, b, c, n};
  g_job.store(&job);
}
