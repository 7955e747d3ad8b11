#pragma once
// A reference process (ReferenceHost starts them, reference_host.hpp): a kwb-runner in the run
// sandbox that loaded a compiled reference and computes on a shared memory of its own, laid out
// per call as the C block of core/reference_abi.h followed by the inputs (copied from the caller)
// and the outputs (doubles, between guard zones). After a crash, a hang or a write past an
// output, the process is gone and every later call repeats why.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "eval/arena.hpp"
#include "eval/reference.hpp"
#include "eval/runner_client.hpp"

namespace kwb::eval {

// Where and how a reference process runs (ReferenceHost fills it from its ReferenceHostConfig).
struct ReferenceProcessConfig {
  std::filesystem::path runner;  // kwb-runner
  std::filesystem::path bwrap = "/usr/bin/bwrap";
  std::filesystem::path jobs_dir;  // the process's folder is made here
  int timeout_ms = 600000;         // per compute: a reference that takes longer is a spec error
  int64_t memory_bytes = 16ll << 30;  // the process's own allocations (beyond its buffers)
};

class ReferenceProcess : public Reference {
 public:
  static util::Result<std::unique_ptr<ReferenceProcess>> start(const ReferenceProcessConfig& cfg,
                                                               const core::Spec& spec, const std::string& object);
  ~ReferenceProcess() override;
  util::Result<void> compute(const core::ReferenceArgs& args) override { return compute(args, true); }
  util::Result<void> compute_fresh(const core::ReferenceArgs& args) override { return compute(args, false); }
  // Alive and never failed: another evaluation of the same spec may have it (ReferenceHost).
  bool reusable();
  size_t arena_bytes() const { return m_arena.size(); }

 private:
  ReferenceProcess(const core::Spec& spec, SharedArena arena) : m_spec(spec), m_arena(std::move(arena)) {}
  // keep_outputs: the caller's output values go in (an element the reference does not write
  // keeps them, which spec checks rely on); else the outputs start at zero, with no copy in.
  util::Result<void> compute(const core::ReferenceArgs& args, bool keep_outputs);
  util::Result<void> compute_locked(const core::ReferenceArgs& args, bool keep_outputs);

  const core::Spec& m_spec;
  SharedArena m_arena;
  std::filesystem::path m_job;
  std::unique_ptr<RunnerSession> m_runner;
  std::mutex m_mutex;
  std::optional<std::string> m_dead;  // why the process is gone
  uint64_t m_calls = 0;
  std::vector<TensorSlot> m_slots;  // the layout the process has mapped (kept while workloads repeat)
};

}  // namespace kwb::eval
