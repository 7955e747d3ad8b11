// CudaEvaluation and the spec's GPU reference (docs/specs.md "GPU references"): compiled with the
// candidate's NVRTC (sandboxed, cached), run in a GPU session of its own started while the
// candidate compiles, checked against the CPU reference on every test workload and distribution
// (run_tests), and then the judge of the bench workloads it names (run_bench, the decide stage).
#include <fmt/format.h>

#include "eval/cuda_evaluation.hpp"
#include "util/clock.hpp"

namespace kwb::eval {

namespace {

using util::ms_since;

}  // namespace

bool CudaEvaluation::wants_gpu_reference() const {
  return m_spec.gpu_reference && m_variant && m_spec.gpu_reference->plans.contains(m_variant->name) &&
         m_device.present;
}

bool CudaEvaluation::compile_gpu_reference() {
  auto t = std::chrono::steady_clock::now();
  const auto& g = *m_spec.gpu_reference;
  auto results = nvrtc()->compile_all({build::CudaCompileRequest{g.source, g.file, {}, {}}});
  m_verdict.summary.stage_ms["reference_compile"] = ms_since(t);
  if (!results)
    return fail(core::Status::error,
                blame_spec(m_spec, fmt::format("its GPU reference ({}) could not be compiled: {}", g.file,
                                               results.error().what())));
  auto& r = results->front();
  if (!r.ok)
    return fail(core::Status::error,
                blame_spec(m_spec, fmt::format("its GPU reference ({}) does not compile: {}", g.file, r.reason)));
  m_reference_cubin = std::move(r.cubin);
  return true;
}

bool CudaEvaluation::open_gpu_reference() {
  if (!m_reference_session.valid() || m_gpu_reference) return true;
  auto t = std::chrono::steady_clock::now();
  auto session = m_reference_session.get();
  if (!session)
    return fail(core::Status::error,
                blame_spec(m_spec, "its GPU reference's session did not start: " + session.error().what()));
  core::LaunchLimits limits;
  if (m_device.max_smem_optin > 0) limits.max_smem_bytes = m_device.max_smem_optin;
  auto g = GpuReference::open(m_spec, std::move(*session), m_reference_cubin, limits, m_opt.run_timeout_ms);
  if (!g) return fail(core::Status::error, blame_spec(m_spec, g.error().what()));
  m_gpu_reference = std::move(*g);
  m_verdict.summary.stage_ms["reference_gpu_wait"] = ms_since(t);  // what its start-up still took here
  return true;
}

bool CudaEvaluation::cross_check_reference(WorkloadHarness& h) {
  // The GPU reference earns its bench workloads here: it must agree with the CPU reference on
  // every test workload under every distribution, before any of them is judged by it.
  if (m_gpu_reference)
    if (auto bad = h.cross_check(*m_gpu_reference, "its GPU reference (" + m_gpu_reference->file() + ")"))
      return fail(core::Status::error, blame_spec(m_spec, *bad));
  return true;
}

Reference& CudaEvaluation::reference_for(const core::Workload& w, bool bench) {
  if (bench && m_gpu_reference && m_spec.gpu_reference->judges(m_variant->name, w)) return *m_gpu_reference;
  return *m_reference;
}

}  // namespace kwb::eval
