// The figures behind docs/fleet.md's choice of one job per candidate, against a real Slurm on
// localhost (the rig: slurm_executor_rig.hpp). Skipped, saying why, where Slurm is not installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "slurm_executor_rig.hpp"

using namespace kwb::test;

namespace {

int64_t epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Waits (5 ms polls, bounded) for a file holding a millisecond timestamp; -1 when it never came.
int64_t timestamp_in(const std::filesystem::path& file, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    std::string t = std::filesystem::exists(file) ? read_text(file) : "";
    if (!t.empty() && t.back() == '\n') return std::stoll(t);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

int64_t median(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? -1 : v[v.size() / 2];
}

}  // namespace

// The figures behind docs/fleet.md's choice of one job per candidate (docs/benchmarks/fleet.md):
// sbatch to the job's first command, against a streaming worker job (already running, polling
// a folder every 50 ms) picking up a new file.
TEST_F(SlurmExecutor, SubmitToStartLatencyOfAJobAndOfAStreamingWorker) {
  const auto dir = m_root / "latency";
  std::filesystem::create_directories(dir);
  std::vector<int64_t> job, stream;
  for (int i = 0; i < 10; ++i) {
    const auto out = dir / ("start-" + std::to_string(i));
    const int64_t t0 = epoch_ms();
    auto r = run_command(m_cluster.tool("sbatch") + " --parsable --output=/dev/null --wrap " +
                         shell_quote("date +%s%3N > " + out.string()));
    ASSERT_EQ(r.exit_code, 0) << r.out << m_cluster.logs();
    const int64_t started = timestamp_in(out, std::chrono::seconds(60));
    ASSERT_GT(started, 0) << "job " << i << " never started:\n" << m_cluster.logs();
    job.push_back(started - t0);
  }
  const std::string loop = "while true; do for f in " + dir.string() + "/in-*; do [ -e \"$f\" ] || continue; "
                           "o=$(echo \"$f\" | sed s/in-/out-/); date +%s%3N > \"$o\"; rm -f \"$f\"; done; sleep 0.05; done";
  auto r = run_command(m_cluster.tool("sbatch") + " --parsable --job-name=stream --output=/dev/null --wrap " +
                       shell_quote(loop));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_TRUE(SlurmCluster::wait_for(
      [&] {
        for (const auto& line : m_cluster.squeue("--states=RUNNING"))
          if (line.ends_with("|stream")) return true;
        return false;
      },
      std::chrono::seconds(60)));
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = epoch_ms();
    std::ofstream(dir / ("in-" + std::to_string(i))) << "x\n";
    const int64_t picked = timestamp_in(dir / ("out-" + std::to_string(i)), std::chrono::seconds(30));
    ASSERT_GT(picked, 0);
    stream.push_back(picked - t0);
  }
  std::string all_job, all_stream;
  for (auto v : job) all_job += " " + std::to_string(v);
  for (auto v : stream) all_stream += " " + std::to_string(v);
  std::printf("[ slurm    ] submit to start of a job, ms:%s (median %lld)\n", all_job.c_str(), (long long)median(job));
  std::printf("[ slurm    ] streaming worker pick-up, ms:%s (median %lld)\n", all_stream.c_str(), (long long)median(stream));
  // An idle node starts a job at once (sched/backfill tries on submission): well under a second.
  EXPECT_LT(median(job), 5000);
  EXPECT_LT(median(stream), 1000);
}
