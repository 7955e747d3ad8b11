#pragma once
// A real Slurm cluster of one node on localhost for tests (docs/fleet.md "Testing"): munged with
// its own key and socket, slurmctld -D and slurmd -D as child processes, configuration, state
// and spool in a temporary folder, free ports. No systemd, no accounting. Slurm's tools find the
// cluster through SLURM_CONF, which start() sets in this process's environment (the daemon
// under test and its jobs inherit it). available() is false, with the reason, where the Slurm or
// MUNGE binaries are not installed (Debian 12: slurmctld slurmd slurm-client munge).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

namespace kwb::test {

class SlurmCluster {
 public:
  // Where each program is looked for (Debian's paths first).
  static std::string find(const std::string& name) {
    for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"}) {
      auto p = std::filesystem::path(dir) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
    return "";
  }
  // "" when every binary is there, else what is missing.
  static std::string missing() {
    std::string out;
    for (const char* b : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo", "scontrol"})
      if (find(b).empty()) out += std::string(out.empty() ? "" : ", ") + b;
    return out.empty() ? "" : "not installed: " + out + " (Debian 12 packages slurmctld, slurmd, slurm-client, munge; .ci/packages)";
  }

  SlurmCluster() = default;
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;
  ~SlurmCluster() { stop(); }

  // Starts munged, slurmctld and slurmd and waits (bounded) until the node is idle. `cpus`: the
  // node's CPUs (0: nproc). False with the reason and the daemons' logs in *error.
  bool start(std::string* error, int cpus = 0) {
    char tmpl[] = "/tmp/kwb-slurm-XXXXXX";
    if (!::mkdtemp(tmpl)) return fail(error, "mkdtemp failed");
    m_dir = tmpl;
    std::filesystem::create_directories(m_dir / "state");
    std::filesystem::create_directories(m_dir / "spool");
    std::filesystem::create_directories(m_dir / "munge");
    ::chmod((m_dir / "munge").c_str(), 0755);  // clients reach the socket; the key stays 0400
    ::chmod(m_dir.c_str(), 0755);
    {  // a fresh MUNGE key, readable by its owner only
      std::random_device rd;
      std::string key(1024, '\0');
      for (auto& c : key) c = char(rd());
      std::ofstream(m_dir / "munge" / "munge.key", std::ios::binary) << key;
      ::chmod((m_dir / "munge" / "munge.key").c_str(), 0400);
    }
    m_socket = m_dir / "munge" / "munge.socket";
    m_munged = spawn({find("munged"), "-F", "-f", "--socket=" + m_socket.string(),
                      "--key-file=" + (m_dir / "munge" / "munge.key").string(),
                      "--pid-file=" + (m_dir / "munge" / "munged.pid").string(),
                      "--log-file=" + (m_dir / "munge" / "munged.log").string(),
                      "--seed-file=" + (m_dir / "munge" / "munged.seed").string()},
                     m_dir / "munge" / "munged.out");
    if (!wait_for([&] { return std::filesystem::exists(m_socket); }, std::chrono::seconds(20)))
      return fail(error, "munged did not create its socket:\n" + logs());
    const int nproc = cpus > 0 ? cpus : int(std::max(1u, std::thread::hardware_concurrency()));
    m_cpus = nproc;
    // A port found free may be taken before slurmctld or slurmd binds it (by another test's
    // server or an outgoing connection): a daemon that exits before the node is idle is started
    // again on new ports, a few times.
    std::string why;
    for (int attempt = 0; attempt < 4; ++attempt) {
      if (attempt > 0) {
        for (pid_t* p : {&m_slurmd, &m_ctld}) end(*p, SIGKILL);
        std::error_code ec;
        std::filesystem::remove_all(m_dir / "state", ec);
        std::filesystem::create_directories(m_dir / "state");
      }
      const int ctld_port = free_port();
      int slurmd_port = free_port();
      while (slurmd_port == ctld_port) slurmd_port = free_port();
      write_conf(nproc, ctld_port, slurmd_port);
      m_ctld = spawn({find("slurmctld"), "-D", "-i", "-f", m_conf.string()}, m_dir / "slurmctld.out");
      m_slurmd = spawn({find("slurmd"), "-D", "-N", "localhost", "-f", m_conf.string()}, m_dir / "slurmd.out");
      bool exited = false;
      if (wait_for([&] {
            exited = has_exited(m_ctld) || has_exited(m_slurmd);
            return exited || node_state() == "idle";
          }, std::chrono::seconds(60)) && !exited)
        return true;
      why = exited ? "a Slurm daemon exited on start" : "the node did not become idle (sinfo: '" + node_state() + "')";
      if (!exited) break;  // not a port clash: retrying would not help
    }
    return fail(error, why + ":\n" + logs());
  }

  // Cancels every job, waits (bounded) until none runs, then stops the daemons.
  void stop() {
    if (m_ctld > 0 && m_slurmd > 0) {
      run_command(tool("scancel") + " --me >/dev/null 2>&1");
      wait_for([&] { return squeue("").empty(); }, std::chrono::seconds(30));
    }
    for (pid_t* p : {&m_slurmd, &m_ctld, &m_munged}) end(*p);
    if (!m_dir.empty() && !std::getenv("KWB_KEEP_SLURM")) {
      std::error_code ec;
      std::filesystem::remove_all(m_dir, ec);
    }
    m_dir.clear();
  }

  // kill -9 of slurmd (the node's daemon), and a new one started.
  void kill_slurmd() { end(m_slurmd, SIGKILL); }
  void start_slurmd() {
    m_slurmd = spawn({find("slurmd"), "-D", "-N", "localhost", "-f", m_conf.string()}, m_dir / "slurmd.out");
  }

  std::string tool(const std::string& name) const { return find(name); }
  // squeue lines "id|state|name" (pending and running jobs; `extra`: more arguments).
  std::vector<std::string> squeue(const std::string& extra) const {
    auto r = run_command(tool("squeue") + " --noheader --format='%i|%T|%j' " + extra + " 2>/dev/null");
    std::vector<std::string> out;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.push_back(line);
    return out;
  }
  std::string node_state() const {
    auto r = run_command(tool("sinfo") + " --noheader --nodes=localhost --format=%T 2>/dev/null");
    std::string s = r.out;
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  bool scontrol(const std::string& args) const {
    return run_command(tool("scontrol") + " " + args + " 2>&1").exit_code == 0;
  }
  const std::filesystem::path& dir() const { return m_dir; }
  int cpus() const { return m_cpus; }
  std::string logs() const {
    std::string out;
    for (const char* f : {"munge/munged.log", "munge/munged.out", "slurmctld.log", "slurmctld.out", "slurmd.log", "slurmd.out"}) {
      auto p = m_dir / f;
      if (std::filesystem::exists(p)) {
        std::string t = read_text(p);
        if (t.size() > 3000) t = "..." + t.substr(t.size() - 3000);
        out += "--- " + std::string(f) + "\n" + t + "\n";
      }
    }
    return out;
  }

  // Polls `cond` every 50 ms until it holds or `limit` passes.
  static bool wait_for(const std::function<bool()>& cond, std::chrono::milliseconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!cond()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
  }

 private:
  static bool fail(std::string* error, const std::string& msg) {
    if (error) *error = msg;
    return false;
  }
  void write_conf(int nproc, int ctld_port, int slurmd_port) {
    std::ofstream conf(m_dir / "slurm.conf");
    conf << "ClusterName=kwbtest\n"
         << "SlurmctldHost=localhost\n"
         << "SlurmctldPort=" << ctld_port << "\nSlurmdPort=" << slurmd_port << "\n"
         << "SlurmUser=" << user_name() << "\nSlurmdUser=root\n"
         << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << m_socket.string() << "\n"
         << "StateSaveLocation=" << (m_dir / "state").string() << "\n"
         << "SlurmdSpoolDir=" << (m_dir / "spool").string() << "\n"
         << "SlurmctldPidFile=" << (m_dir / "slurmctld.pid").string() << "\n"
         << "SlurmdPidFile=" << (m_dir / "slurmd.pid").string() << "\n"
         << "SlurmctldLogFile=" << (m_dir / "slurmctld.log").string() << "\n"
         << "SlurmdLogFile=" << (m_dir / "slurmd.log").string() << "\n"
         << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
         << "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
         << "SchedulerType=sched/backfill\nMpiDefault=none\nSwitchType=switch/none\n"
         // Batch jobs are scheduled on submission (the default defers them up to 3 s: docs/benchmarks/fleet.md).
         << "SchedulerParameters=batch_sched_delay=0\n"
         << "AccountingStorageType=accounting_storage/none\nJobAcctGatherType=jobacct_gather/none\n"
         << "JobCompType=jobcomp/none\nReturnToService=2\nMinJobAge=300\nKillWait=5\n"
         << "SlurmctldTimeout=30\nSlurmdTimeout=30\nInactiveLimit=0\nWaitTime=0\n"
         << "NodeName=localhost NodeAddr=127.0.0.1 CPUs=" << nproc << " State=UNKNOWN\n"
         << "PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n";
    conf.close();
    m_conf = m_dir / "slurm.conf";
    ::setenv("SLURM_CONF", m_conf.c_str(), 1);
  }
  // True once the child has exited (it is reaped; pid becomes -1).
  static bool has_exited(pid_t& pid) {
    if (pid <= 0) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) != pid) return false;
    pid = -1;
    return true;
  }
  static std::string user_name() {
    auto r = run_command("id -un");
    std::string s = r.out;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s.empty() ? "root" : s;
  }
  // A free port below the kernel's ephemeral range (so no outgoing connection nor bind(0) of
  // another test takes it after it is chosen), picked at random and checked by binding it.
  static int free_port() {
    int low = 32768;
    {
      std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
      range >> low;
    }
    const int top = std::max(2048, low), bottom = std::max(1025, top - 12000);
    static std::mt19937 rng{std::random_device{}()};
    for (int i = 0; i < 200; ++i) {
      int port = std::uniform_int_distribution<int>(bottom, top - 1)(rng);
      int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_ANY);
      a.sin_port = htons(uint16_t(port));
      bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
      ::close(fd);
      if (ok) return port;
    }
    return 0;
  }
  static pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& log) {
    std::vector<std::string> a = args;
    std::vector<char*> argv;
    for (auto& s : a) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      ::setpgid(0, 0);
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  }
  static void end(pid_t& pid, int sig = SIGTERM) {
    if (pid <= 0) return;
    ::kill(pid, sig);
    int status = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid = -1;
  }

  std::filesystem::path m_dir, m_socket, m_conf;
  pid_t m_munged = -1, m_ctld = -1, m_slurmd = -1;
  int m_cpus = 1;
};

}  // namespace kwb::test
