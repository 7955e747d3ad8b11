#pragma once
// Runs a scheduler command-line tool (sbatch, squeue, scancel) without a shell: argv as given,
// stdout and stderr captured (capped), a wall-clock limit after which it is killed.
#include <chrono>
#include <string>
#include <vector>

namespace kwb::exec {

struct CommandOutcome {
  bool started = false;  // false: the executable could not be run (output says why)
  int exit_code = -1;    // -1: killed by a signal or by the time limit
  bool timed_out = false;
  std::string out, err;
  bool ok() const { return started && exit_code == 0; }
  std::string describe() const;  // "exit 1: <stderr>" for error messages
};

CommandOutcome run_command(const std::vector<std::string>& argv,
                           std::chrono::milliseconds limit = std::chrono::milliseconds(30000));

}  // namespace kwb::exec
