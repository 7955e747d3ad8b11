#include "util/parallel.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>

namespace kwb::util {

namespace {

struct Job {
  size_t chunks;
  void* ctx;
  void (*call)(void*, size_t);
  std::atomic<size_t> next{0};
  size_t done = 0;     // chunks finished (under the pool's mutex)
  int helpers = 0;     // workers inside run(): the job outlives them (under the pool's mutex)
};

class ChunkWorkers {
 public:
  explicit ChunkWorkers(unsigned n) {
    for (unsigned i = 0; i < n; ++i) std::thread([this] { work(); }).detach();
  }

  void run(size_t chunks, void* ctx, void (*call)(void*, size_t)) {
    Job job{chunks, ctx, call};
    {
      std::lock_guard lock(m_mutex);
      m_jobs.push_back(&job);
    }
    m_work.notify_all();
    size_t mine = drain(job);
    std::unique_lock lock(m_mutex);
    job.done += mine;
    std::erase(m_jobs, &job);  // every chunk is taken: no worker needs to find it any more
    m_done.wait(lock, [&] { return job.done == job.chunks && job.helpers == 0; });
  }

 private:
  // Runs chunks of `job` until none is left to take; how many it ran.
  static size_t drain(Job& job) {
    size_t ran = 0;
    for (size_t k; (k = job.next.fetch_add(1, std::memory_order_relaxed)) < job.chunks; ++ran) job.call(job.ctx, k);
    return ran;
  }

  void work() {
    std::unique_lock lock(m_mutex);
    while (true) {
      m_work.wait(lock, [&] { return !m_jobs.empty(); });
      Job& job = *m_jobs.front();
      if (job.next.load(std::memory_order_relaxed) >= job.chunks) {  // all taken: not ours to wait on
        m_jobs.pop_front();
        continue;
      }
      ++job.helpers;
      lock.unlock();
      size_t ran = drain(job);
      lock.lock();
      job.done += ran;
      --job.helpers;
      if (job.done == job.chunks && job.helpers == 0) m_done.notify_all();
    }
  }

  std::mutex m_mutex;
  std::condition_variable m_work, m_done;
  std::deque<Job*> m_jobs;  // calls with chunks possibly left to take, oldest first
};

}  // namespace

void run_chunks(size_t chunks, void* ctx, void (*call)(void*, size_t)) {
  // Never destroyed: detached workers may still wait on it while the process exits.
  static ChunkWorkers* workers = new ChunkWorkers(std::max(1u, std::thread::hardware_concurrency()) - 1);
  workers->run(chunks, ctx, call);
}

}  // namespace kwb::util
