#pragma once
// A spec's GPU reference (core::GpuReferenceSpec, docs/specs.md "GPU references") as an
// evaluation's Reference: its own kwb-gpu-runner session (sandboxed, a context apart from the
// candidate's, so the expected outputs never exist in the candidate's process or address space)
// runs the reference's cubin with the variant's plan on a shared arena laid out per call as the
// inputs (in the variant's dtypes) and the outputs (f64, poisoned, between guard zones). After a
// crash, a hang or a write past an output the session is gone and every later call says why.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_plan.hpp"
#include "eval/cuda_session.hpp"
#include "eval/reference.hpp"

namespace kwb::eval {

class GpuReference : public Reference {
 public:
  // `session`: started for the reference (GpuSessionOptions::who "the reference"); `cubin`: the
  // reference's source compiled for the device.
  static util::Result<std::unique_ptr<GpuReference>> open(const core::Spec& spec, std::unique_ptr<GpuSession> session,
                                                          const std::string& cubin, core::LaunchLimits limits,
                                                          int timeout_ms);
  util::Result<void> compute(const core::ReferenceArgs& args) override;
  const std::string& file() const { return m_spec.gpu_reference->file; }

 private:
  GpuReference(const core::Spec& spec, std::unique_ptr<GpuSession> session, core::LaunchLimits limits, int timeout_ms)
      : m_spec(spec), m_session(std::move(session)), m_limits(limits), m_timeout_ms(timeout_ms) {}
  util::Result<void> compute_locked(const core::ReferenceArgs& args);

  const core::Spec& m_spec;
  std::unique_ptr<GpuSession> m_session;
  core::LaunchLimits m_limits;
  int m_timeout_ms;
  std::mutex m_mutex;
  std::optional<std::string> m_dead;      // why the session is gone
  std::optional<std::string> m_loaded;    // the variant whose plan the runner holds
  std::vector<TensorSlot> m_slots;        // the layout the runner has mapped
  std::vector<double> m_scalars;          // the scalars it was mapped with
  std::map<std::string, int64_t> m_dims_for;  // the params whose launch dimensions it holds
  bool m_has_dims = false;
};

}  // namespace kwb::eval
