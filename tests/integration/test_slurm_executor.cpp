// The Slurm executor against a real Slurm on localhost (slurm_cluster.hpp; docs/fleet.md):
// verdicts through Slurm jobs, a killed job run again with one verdict, cancellation scancels
// the job, and a daemon killed with 10 jobs in flight re-attaches to them on restart. Skipped,
// saying why, only where the Slurm or MUNGE binaries are not installed.
// The submit-to-start latency figures: test_slurm_latency.cpp.
#include <httplib.h>
#include <signal.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "library/device_class.hpp"
#include "library/repository.hpp"
#include "slurm_executor_rig.hpp"

namespace {

using namespace kwb::test;

TEST_F(SlurmExecutor, HonestAndWrongCandidatesGetTheVerdictsOfTheLocalExecutor) {
  start_daemon("20");
  const std::string honest = submit(k_honest), wrong = submit(k_wrong);
  ASSERT_FALSE(honest.empty());
  ASSERT_FALSE(wrong.empty());
  auto h = finished(honest), w = finished(wrong);
  ASSERT_EQ(h["state"], "done") << h.dump(2) << m_daemon.log();
  EXPECT_EQ(h["verdict"]["status"], "accepted") << h["verdict"].dump(2);
  ASSERT_EQ(w["state"], "done") << w.dump(2);
  EXPECT_EQ(w["verdict"]["status"], "incorrect") << w["verdict"].dump(2);
  for (const auto& id : {honest, wrong}) {
    EXPECT_EQ(slurm_jobs_of(id).size(), 1u) << id << " did not run as one Slurm job:\n" << m_daemon.log();
    EXPECT_EQ(events(id, "verdict").size(), 1u) << id;
  }
  // The verdict is written when the worker posts its result; the job then leaves the queue once
  // its process exits (a COMPLETING job is still listed for a moment).
  EXPECT_TRUE(SlurmCluster::wait_for([&] { return !in_squeue(honest) && !in_squeue(wrong); }, std::chrono::seconds(60)))
      << "a finished candidate's job stayed in squeue";
  // The daemon's account of the Slurm path's overheads (docs/benchmarks/fleet.md).
  {
    std::istringstream log(m_daemon.log());
    int lines = 0;
    for (std::string line; std::getline(log, line);)
      if (line.find("submit to start") != std::string::npos) {
        std::printf("[ slurm    ] %s\n", line.c_str());
        ++lines;
      }
    EXPECT_EQ(lines, 2) << m_daemon.log();
  }
  auto workload_starts = [&](const std::string& id) {
    std::set<std::string> out;
    for (const auto& ev : events(id, "progress"))
      if (ev["data"].contains("workload") && ev["data"].value("samples", -1) == 0) {
        const std::string name = ev["data"].value("workload", "");
        out.insert(ev["data"].value("stage", "") + " " + (name.starts_with("drawn:") ? "drawn" : name));
      }
    return out;
  };
  auto notes = [&](const std::string& id) {
    size_t n = 0;
    for (const auto& ev : events(id, "progress")) n += ev["data"].contains("detail");
    return n;
  };
  const auto slurm_workload_starts = workload_starts(honest);
  const size_t slurm_notes = notes(honest);
  // The same candidates on the local executor: verdicts of the same form.
  m_daemon.stop();
  start_daemon("20", /*slurm=*/false);
  const std::string honest_local = submit(k_honest), wrong_local = submit(k_wrong);
  auto hl = finished(honest_local), wl = finished(wrong_local);
  ASSERT_EQ(hl["verdict"]["status"], "accepted");
  ASSERT_EQ(wl["verdict"]["status"], "incorrect");
  EXPECT_EQ(keys_of(h), keys_of(hl));
  // The worker's progress reached the candidate's events as the local lane's does: each
  // workload's start in the stages that check and time (drawn shapes are drawn anew), and the
  // decide stage's notes.
  EXPECT_FALSE(workload_starts(honest_local).empty());
  EXPECT_EQ(slurm_workload_starts, workload_starts(honest_local));
  EXPECT_GT(notes(honest_local), 0u);
  EXPECT_GT(slurm_notes, 0u);
  EXPECT_EQ(keys_of(h["verdict"]), keys_of(hl["verdict"])) << h["verdict"].dump(2) << "\nlocal:\n" << hl["verdict"].dump(2);
  EXPECT_EQ(keys_of(h["verdict"]["summary"]), keys_of(hl["verdict"]["summary"]));
  EXPECT_EQ(keys_of(w["verdict"]), keys_of(wl["verdict"])) << w["verdict"].dump(2) << "\nlocal:\n" << wl["verdict"].dump(2);
  ASSERT_EQ(h["verdict"]["workloads"].size(), hl["verdict"]["workloads"].size());
  for (size_t i = 0; i < h["verdict"]["workloads"].size(); ++i)
    EXPECT_EQ(keys_of(h["verdict"]["workloads"][i]), keys_of(hl["verdict"]["workloads"][i])) << i;
}

TEST_F(SlurmExecutor, AJobKilledMidEvaluationIsRunAgainWithOneVerdict) {
  start_daemon("1500");  // long enough a benchmark to be caught in it
  const std::string id = submit(k_honest);
  ASSERT_FALSE(id.empty());
  const pid_t worker = worker_in_benchmark(id);
  ASSERT_GT(worker, 0) << "the candidate never reached its benchmark in a Slurm job:\n" << m_daemon.log();
  ASSERT_EQ(::kill(worker, SIGKILL), 0);
  auto c = finished(id);
  ASSERT_EQ(c["state"], "done") << c.dump(2) << m_daemon.log();
  EXPECT_EQ(c["verdict"]["status"], "accepted") << c["verdict"].dump(2);
  EXPECT_EQ(events(id, "verdict").size(), 1u);
  EXPECT_EQ(slurm_jobs_of(id).size(), 2u) << "the killed job was not submitted again:\n" << m_daemon.log();
  EXPECT_EQ(c["attempts"], 1);
}

// A node that fails mid-evaluation (Slurm's own path for it: the node set DOWN kills its jobs)
// has its job run again once the node is back (requeued by Slurm under --requeue, or submitted
// again by the daemon when the job ended FAILED), and the candidate gets exactly one verdict, from
// the second run.
TEST_F(SlurmExecutor, ANodeThatFailsMidEvaluationHasItsJobRequeuedAndOneVerdict) {
  start_daemon("1500");
  const std::string id = submit(k_honest);
  ASSERT_FALSE(id.empty());
  const pid_t worker = worker_in_benchmark(id);
  ASSERT_GT(worker, 0) << "the candidate never reached its benchmark in a Slurm job:\n" << m_daemon.log();
  ASSERT_TRUE(m_cluster.scontrol("update NodeName=localhost State=DOWN Reason=kwb-node-failure-test"));
  // The node's jobs are killed: the worker is gone and the job waits in the queue again.
  ASSERT_TRUE(SlurmCluster::wait_for([&] { return ::kill(worker, 0) != 0; }, std::chrono::seconds(60)))
      << "the worker outlived its node:\n" << m_cluster.logs();
  ASSERT_TRUE(SlurmCluster::wait_for([&] { return !m_cluster.squeue("--states=PENDING --name=kwb-" + id).empty(); },
                                     std::chrono::seconds(60)))
      << "the job was not requeued:\n" << m_cluster.logs();
  EXPECT_NE(get("/v1/candidates/" + id)["state"], "done") << "a verdict came from a run its node killed";
  // The node comes back: its slurmd is alive, so with ReturnToService=2 Slurm may return it by
  // itself (RESUME is then refused), else once its jobs are killed RESUME does.
  ASSERT_TRUE(SlurmCluster::wait_for(
      [&] {
        return m_cluster.node_state().starts_with("idle") || m_cluster.node_state().starts_with("alloc") ||
               m_cluster.node_state().starts_with("mix") || m_cluster.scontrol("update NodeName=localhost State=RESUME");
      },
      std::chrono::seconds(60)))
      << "the node did not come back (sinfo: " << m_cluster.node_state() << "):\n" << m_cluster.logs();
  for (const auto& line : m_cluster.squeue("--name=kwb-" + id))  // a requeued job may be held back a while
    m_cluster.scontrol("update JobId=" + line.substr(0, line.find('|')) + " StartTime=now");
  auto c = finished(id);
  ASSERT_EQ(c["state"], "done") << c.dump(2) << m_daemon.log();
  EXPECT_EQ(c["verdict"]["status"], "accepted") << c["verdict"].dump(2);
  EXPECT_EQ(events(id, "verdict").size(), 1u);
  // Slurm requeues the job itself (one job id) when its controller kills the job first; when the
  // node's slurmstepd ends the batch step first, the job ends FAILED without a result and the
  // daemon submits it again (a second job). Which one happens is Slurm's race; both are one
  // re-run and one verdict.
  const auto jobs = slurm_jobs_of(id);
  EXPECT_TRUE(jobs.size() == 1u || jobs.size() == 2u) << jobs.size() << " jobs:\n" << m_daemon.log();
  if (jobs.size() == 2u)
    EXPECT_NE(m_daemon.log().find("without a result"), std::string::npos) << m_daemon.log();
  EXPECT_EQ(c["attempts"], 1);
}

// A job that runs past its Slurm time limit (the shortest Slurm has: one minute) ends TIMEOUT;
// on its last try that is the candidate's `time_limit` verdict, once, naming the limit (a first
// TIMEOUT with tries left is submitted again, as any job that ended without a result).
TEST_F(SlurmExecutor, AJobPastItsTimeLimitOnItsLastTryIsATimeLimitVerdict) {
  std::string error;
  auto a = args("20");
  // A runner command may take 10 minutes: only Slurm's limit can end the job's first call.
  a.insert(a.end(), {"--slurm-time-limit-min", "1", "--slurm-max-tries", "1", "--run-timeout-ms", "600000"});
  ASSERT_TRUE(m_daemon.start(a, m_root / "ws", &error)) << error;
  // Correct, but its first call spins for many minutes (no clock: a kernel may not read one).
  const std::string id = submit(
      "#include <cstdint>\nextern \"C\" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {\n"
      "  volatile double spin = 0;\n  for (long i = 0; i < 1000000000000L; ++i) spin = spin + 1.0;\n"
      "  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];\n}\n");
  ASSERT_FALSE(id.empty());
  auto c = finished(id, 240);  // Slurm checks time limits every 30 s, then KillWait (5 s)
  ASSERT_EQ(c["state"], "done") << c.dump(2) << m_daemon.log();
  EXPECT_EQ(c["verdict"]["status"], "time_limit") << c["verdict"].dump(2);
  EXPECT_NE(c["verdict"]["reason"].get<std::string>().find("Slurm job time limit of 1 min"), std::string::npos)
      << c["verdict"]["reason"];
  EXPECT_EQ(events(id, "verdict").size(), 1u);
  EXPECT_EQ(slurm_jobs_of(id).size(), 1u) << m_daemon.log();
}

// --auto-promote applies to verdicts judged on a node as to the local lanes': a winner (here
// the first kernel of its op: an empty library) is committed before its verdict is visible, by
// "auto-promote", under the device class the candidate recorded (its node's).
TEST_F(SlurmExecutor, AutoPromoteCommitsAWinnerJudgedOnANode) {
  std::filesystem::create_directories(m_root / "no-kernels");
  auto a = args("20");
  a.insert(a.end(), {"--kernels-dir", (m_root / "no-kernels").string(), "--auto-promote", "vector_add"});
  std::string error;
  ASSERT_TRUE(m_daemon.start(a, m_root / "ws", &error)) << error;
  const std::string id = submit(k_honest);
  ASSERT_FALSE(id.empty());
  auto c = finished(id);
  ASSERT_EQ(c["state"], "done") << c.dump(2) << m_daemon.log();
  ASSERT_EQ(c["verdict"]["status"], "accepted") << c["verdict"].dump(2);
  EXPECT_EQ(slurm_jobs_of(id).size(), 1u) << m_daemon.log();
  EXPECT_NE(c["verdict"]["reason"].get<std::string>().find("auto-promoted in library commit"), std::string::npos)
      << c["verdict"]["reason"] << "\n" << m_daemon.log();
  ASSERT_TRUE(c["decision"].is_object()) << c.dump(2);
  EXPECT_EQ(c["decision"]["decision"], "promoted");
  auto repo = kwb::library::Repository::open(m_root / "ws" / "library");
  ASSERT_TRUE(repo);
  auto log = (*repo)->log();
  ASSERT_TRUE(log && !log->empty());
  const auto& head = log->front();
  EXPECT_EQ(head.trailers.at("Kwb-Candidate"), id);
  EXPECT_EQ(head.trailers.at("Kwb-Reviewer"), "auto-promote");
  ASSERT_TRUE(c["device_class"].is_string()) << c.dump(2);
  EXPECT_EQ(head.trailers.at("Kwb-Device-Class"), c["device_class"].get<std::string>());
}

TEST_F(SlurmExecutor, CancellingACandidateScancelsItsJob) {
  ASSERT_TRUE(m_cluster.scontrol("update PartitionName=debug State=DOWN"));  // its job stays pending
  start_daemon("20");
  const std::string id = submit(k_honest);
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(SlurmCluster::wait_for([&] { return in_squeue(id); }, std::chrono::seconds(120)))
      << "no Slurm job for " << id << ":\n" << m_daemon.log();
  auto r = client().Post("/v1/candidates/" + id + "/cancel", "", "application/json");
  ASSERT_TRUE(r);
  EXPECT_LT(r->status, 300) << r->body;
  EXPECT_TRUE(SlurmCluster::wait_for([&] { return !in_squeue(id); }, std::chrono::seconds(30)))
      << "the job is still in squeue after the cancel";
  auto c = finished(id, 60);
  EXPECT_EQ(c["state"], "cancelled") << c.dump(2);
  EXPECT_TRUE(c["verdict"].is_null()) << c.dump(2);
}

TEST_F(SlurmExecutor, DaemonKilledWithTenJobsInFlightReattachesOnRestart) {
  ASSERT_TRUE(m_cluster.scontrol("update PartitionName=debug State=DOWN"));  // all 10 submitted before any runs
  start_daemon("20");
  std::vector<std::string> ids;
  for (int i = 0; i < 10; ++i) {
    ids.push_back(submit("// reattach " + std::to_string(i) + "\n" + k_honest));
    ASSERT_FALSE(ids.back().empty());
  }
  auto jobs_in_queue = [&] {
    int n = 0;
    for (const auto& id : ids) n += in_squeue(id);
    return n;
  };
  ASSERT_TRUE(SlurmCluster::wait_for([&] { return jobs_in_queue() == 10; }, std::chrono::seconds(240)))
      << jobs_in_queue() << " of 10 jobs in squeue:\n" << m_daemon.log();
  ASSERT_TRUE(m_cluster.scontrol("update PartitionName=debug State=UP"));
  ASSERT_TRUE(SlurmCluster::wait_for(
      [&] {
        for (const auto& line : m_cluster.squeue("--states=RUNNING"))
          if (line.find("|kwb-") != std::string::npos) return true;
        return false;
      },
      std::chrono::seconds(60)));
  m_daemon.kill_hard();
  std::string error;
  ASSERT_TRUE(m_daemon.start(args("20"), m_root / "ws", &error)) << error;
  EXPECT_NE(m_daemon.log().find("re-attached to 10 candidate(s)"), std::string::npos) << m_daemon.log();
  for (const auto& id : ids) {
    auto c = finished(id);
    EXPECT_EQ(c["state"], "done") << id << ": " << c.dump(2);
    EXPECT_EQ(c["verdict"]["status"], "accepted") << id << ": " << c["verdict"].dump(2);
    EXPECT_EQ(c["attempts"], 1) << id << " was run again";
    EXPECT_EQ(events(id, "verdict").size(), 1u) << id;
    EXPECT_EQ(slurm_jobs_of(id).size(), 1u) << id << " was submitted again instead of re-attached";
  }
}

// Device classes on the fleet (docs/fleet.md "Device classes"): --slurm-device-classes names the
// classes and their partitions; a submission asking for one runs in its partition, the worker's
// calibration of its node reaches GET /v1/devices under the node's class, a candidate that asked
// for none gets the node's class, and a partition holding nodes of another class than the one
// configured gives an error verdict naming both (not a timing filed under the wrong class).
TEST_F(SlurmExecutor, DeviceClassesRouteToTheirPartitionAndListTheNodesCalibration) {
  const std::string here = kwb::library::host_cpu_class();
  const std::string other = here == "cpu-x86_64-v1" ? "cpu-x86_64-v2" : "cpu-x86_64-v1";
  std::vector<std::string> a = args("20");
  a.insert(a.end(), {"--slurm-device-classes", here + "=debug," + other + "=debug"});
  std::string error;
  ASSERT_TRUE(m_daemon.start(a, m_root / "ws", &error)) << error;
  auto devices = get("/v1/devices");
  EXPECT_EQ(devices["executor"], "slurm") << devices.dump(2);
  ASSERT_EQ(devices["device_classes"].size(), 2u) << devices.dump(2);
  EXPECT_EQ(devices["device_classes"][0]["device_class"], here);
  EXPECT_EQ(devices["device_classes"][0]["partition"], "debug");
  EXPECT_TRUE(devices["device_classes"][0]["devices"].empty()) << "no worker reported yet: " << devices.dump(2);

  auto post = [&](const std::string& device_class) {
    nlohmann::json body = {{"op", "vector_add"}, {"source", std::string("// ") + device_class + "\n" + k_wrong}};
    if (!device_class.empty()) body["device_class"] = device_class;
    return client().Post("/v1/candidates", body.dump(), "application/json");
  };
  auto refused = post("cpu-aarch64");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 422) << refused->body;
  EXPECT_NE(refused->body.find("known: " + here + ", " + other), std::string::npos) << refused->body;

  std::map<std::string, std::string> ids;
  for (const std::string& cls : {here, other, std::string()}) {
    auto r = post(cls);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 202) << r->body;
    ids[cls] = nlohmann::json::parse(r->body)["id"];
  }
  auto asked = finished(ids[here]), mismatched = finished(ids[other]), any = finished(ids[""]);
  ASSERT_EQ(asked["state"], "done") << asked.dump(2) << m_daemon.log();
  EXPECT_EQ(asked["verdict"]["status"], "incorrect") << asked["verdict"].dump(2);
  EXPECT_EQ(asked["device_class"], here);
  EXPECT_EQ(any["verdict"]["status"], "incorrect") << any["verdict"].dump(2);
  EXPECT_EQ(any["device_class"], here) << "a candidate that asked for no class gets its node's";
  EXPECT_EQ(mismatched["verdict"]["status"], "error") << mismatched["verdict"].dump(2);
  const std::string reason = mismatched["verdict"].value("reason", "");
  EXPECT_NE(reason.find("asked for device class " + other), std::string::npos) << reason;
  EXPECT_NE(reason.find("of class " + here), std::string::npos) << reason;

  devices = get("/v1/devices");
  ASSERT_EQ(devices["device_classes"][0]["devices"].size(), 1u) << devices.dump(2);
  EXPECT_TRUE(devices["device_classes"][1]["devices"].empty()) << devices.dump(2);
  ASSERT_EQ(devices["devices"].size(), 1u) << devices.dump(2);
  const auto& node = devices["devices"][0];
  EXPECT_EQ(node["id"], devices["device_classes"][0]["devices"][0]);
  EXPECT_EQ(node["device_class"], here);
  EXPECT_EQ(node["kind"], "cpu");
  EXPECT_EQ(node["partition"], "debug");
  EXPECT_EQ(node["node"], "localhost");
  EXPECT_GT(node["copy_bytes_per_s"].get<double>(), 0) << node.dump(2);
  // Candidates are listed per device class.
  auto listed = get("/v1/candidates?device_class=" + here);
  EXPECT_EQ(listed["items"].size(), 2u) << listed.dump(2);
}

}  // namespace
