// kwb-gpu-runner: runs `cuda`-form candidates for the trusted evaluator (gpu_runner.hpp).
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "gpu_runner/gpu_runner.hpp"
#include "protocol/protocol.hpp"

namespace {
// The GPU runner is trusted code: when the driver faults, print the stack (to the runner's
// captured stderr, which the verdict quotes) before dying with the same signal.
void crash_report(int sig) {
  void* frames[48];
  int n = ::backtrace(frames, 48);
  const char head[] = "kwb-gpu-runner: fatal signal; stack:\n";
  (void)!::write(2, head, sizeof head - 1);
  ::backtrace_symbols_fd(frames, n, 2);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace kwb;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::signal(sig, crash_report);
  int cmd_fd = 3, reply_fd = 4, shm_fd = 5, go_fd = -1, done_fd = -1;
  int fds = argc == 3 && std::string(argv[1]) == "--fds"
                ? std::sscanf(argv[2], "%d,%d,%d,%d,%d", &cmd_fd, &reply_fd, &shm_fd, &go_fd, &done_fd)
                : 0;
  if (fds != 3 && fds != 5) {
    std::fprintf(stderr, "usage: kwb-gpu-runner --fds CMD,REPLY,SHM[,GO,DONE] (started by the workbench)\n");
    return 2;
  }
  gpu::GpuRunner runner(shm_fd);
  if (fds == 5) runner.set_pacing(go_fd, done_fd);
  wire::LineReader reader(cmd_fd);
  while (true) {
    nlohmann::json cmd;
    auto st = reader.read(cmd, -1);
    if (st != wire::LineReader::Status::ok) return st == wire::LineReader::Status::closed ? 0 : 3;
    nlohmann::json reply;
    try {
      std::string op = cmd.value("op", "");
      if (op == "device") reply = runner.device(cmd);
      else if (op == "load") reply = runner.load(cmd);
      else if (op == "map") reply = runner.map(cmd);
      else if (op == "dims") reply = runner.dims(cmd);
      else if (op == "call") reply = runner.call();
      else if (op == "time") reply = runner.time(cmd);
      else if (op == "fetch") reply = runner.fetch();
      else if (op == "clock") reply = runner.clock(cmd);
      else if (op == "stats") reply = runner.stats();
      else if (op == "calibrate") reply = runner.calibrate(cmd);
      else if (op == "graph") reply = runner.graph(cmd);
      else if (op == "graph_time") reply = runner.graph_time(cmd);
      else if (op == "quit") return 0;
      else reply = gpu::reply_error("unknown command '" + op + "'");
    } catch (const std::exception& e) {
      reply = gpu::reply_error(std::string("bad command: ") + e.what());
    }
    if (cmd.contains("seq")) reply["seq"] = cmd["seq"];  // the answer names its command
    if (!wire::write_line(reply_fd, reply)) return 4;
    if (reply.contains("paced")) {
      std::string error;
      auto end = runner.paced_samples(error);
      if (end == gpu::GpuRunner::Paced::broken) return 5;
      if (end == gpu::GpuRunner::Paced::failed) {  // the time command's second (and last) reply
        nlohmann::json failure = gpu::reply_error(error);
        if (cmd.contains("seq")) failure["seq"] = cmd["seq"];
        if (!wire::write_line(reply_fd, failure)) return 4;
      }
    }
  }
}
