#pragma once
// A reference process (reference_host.hpp): a kwb-runner in the run sandbox that
// loaded a compiled reference and computes on a shared memory of its own, laid out per call as
// the C block of core/reference_abi.h followed by the inputs (copied from the caller) and the
// outputs (doubles, between guard zones). After a crash, a hang or a write past an output, the
// process is gone and every later call repeats why.
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "eval/arena.hpp"
#include "eval/reference.hpp"
#include "eval/reference_host.hpp"
#include "eval/runner_client.hpp"

namespace kwb::eval {

class ReferenceProcess : public Reference {
 public:
  static util::Result<std::unique_ptr<ReferenceProcess>> start(const ReferenceHostConfig& cfg, const core::Spec& spec,
                                                               const std::string& object);
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
