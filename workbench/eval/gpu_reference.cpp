#include "eval/gpu_reference.hpp"

#include <fmt/format.h>

#include "eval/gpu_failure.hpp"
#include "eval/plan_commands.hpp"
#include "spec/loader.hpp"
#include "util/fs.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"

namespace kwb::eval {

namespace {

constexpr const char* k_cubin = "reference.cubin";

}  // namespace

util::Result<std::unique_ptr<GpuReference>> GpuReference::open(const core::Spec& spec,
                                                               std::unique_ptr<GpuSession> session,
                                                               const std::string& cubin, core::LaunchLimits limits,
                                                               int timeout_ms) {
  if (!spec.gpu_reference) return util::fail("", "the spec has no GPU reference");
  if (!session || !session->runner || !session->arena) return util::fail("", "no GPU session for the GPU reference");
  if (!session->device.value("present", false))
    return util::fail("", "its GPU session found no device: " + session->device.value("reason", std::string("?")));
  if (auto w = util::write_file_atomic(session->job / k_cubin, cubin); !w) return std::unexpected(w.error());
  return std::unique_ptr<GpuReference>(new GpuReference(spec, std::move(session), limits, timeout_ms));
}

util::Result<void> GpuReference::compute(const core::ReferenceArgs& args) {
  std::lock_guard lock(m_mutex);
  if (m_dead) return util::fail("", *m_dead);
  auto r = compute_locked(args);
  if (!r && !m_session) m_dead = r.error().what();
  return r;
}

util::Result<void> GpuReference::compute_locked(const core::ReferenceArgs& args) {
  const std::string& file = m_spec.gpu_reference->file;
  auto gone = [&](const std::string& why) {
    m_session.reset();  // the runner is killed; later calls repeat why
    return util::fail("", fmt::format("its GPU reference ({}): {}", file,
                                      classify_gpu_failure(core::Status::error, why).reason));  // without the tag
  };
  auto plan = m_spec.gpu_reference->plans.find(args.variant);
  const core::Variant* variant = m_spec.find_variant(args.variant);
  if (plan == m_spec.gpu_reference->plans.end() || !variant)
    return util::fail("", fmt::format("its GPU reference ({}) has no plan for variant '{}'", file, args.variant));
  RunnerSession& runner = *m_session->runner;
  SharedArena& arena = *m_session->arena;
  if (m_loaded != args.variant) {
    auto r = runner.command(load_module_command(plan->second, std::string("/job/") + k_cubin, false), m_timeout_ms,
                            "loading the GPU reference");
    if (!r) return gone(r.error().reason);
    m_loaded = args.variant;
    m_has_dims = false;
  }
  // Inputs in the variant's dtypes, outputs as doubles, in the spec's tensor order (the plan's
  // tensor indices count the variant's tensors: an optional one it omits has no slot).
  std::vector<TensorSlot> slots;
  for (const auto* tp : m_spec.tensors_of(*variant)) {
    const core::TensorSpec& t = *tp;
    auto shape = spec::tensor_shape(m_spec, t, args.params);
    if (!shape) return std::unexpected(shape.error());
    TensorSlot s;
    s.name = t.name;
    s.role = t.role;
    s.dtype = t.role == core::Role::in ? variant->dtypes.at(t.name) : core::DType::f64;
    s.shape = *shape;
    s.count = 1;
    for (auto d : s.shape) s.count *= size_t(d);
    s.bytes = s.count * core::dtype_size(s.dtype);
    slots.push_back(std::move(s));
  }
  std::vector<double> scalars;
  for (const auto& sc : m_spec.scalars) {
    auto v = args.scalars.find(sc.name);
    if (v == args.scalars.end()) return util::fail("", "the caller gave no scalar '" + sc.name + "'");
    scalars.push_back(v->second);
  }
  if (!same_layout(slots, m_slots) || scalars != m_scalars) {
    if (auto l = arena.layout(slots); !l) return std::unexpected(l.error());
    std::vector<int64_t> params;
    for (const auto& p : m_spec.params) params.push_back(args.params.at(p));
    if (auto r = runner.map(arena, slots, params, scalars); !r) return gone(r.error().reason);
    m_slots = slots;
    m_scalars = scalars;
    m_has_dims = false;
  }
  if (!m_has_dims || m_dims_for != args.params) {
    auto dims = dims_command(plan->second, {}, args.params, file, "this workload", m_limits);
    if (!dims) return util::fail("", fmt::format("its GPU reference ({}): {}", file, dims.error().what()));
    if (auto r = runner.command(*dims, m_timeout_ms, "setting the GPU reference's launches"); !r)
      return gone(r.error().reason);
    m_dims_for = args.params;
    m_has_dims = true;
  }
  for (const auto& s : m_slots) {
    if (s.role != core::Role::in) continue;
    auto in = args.inputs.find(s.name);
    if (in == args.inputs.end()) return util::fail("", "the caller gave no input '" + s.name + "'");
    util::parallel_copy(arena.data(s), in->second, s.bytes);
  }
  arena.poison_outputs();  // an element it does not write is NaN
  arena.arm_guards(util::secret_seed());
  if (auto r = runner.call("computing the expected outputs on the GPU"); !r) return gone(r.error().reason);
  if (auto g = arena.check_guards()) return gone("it wrote outside its buffers: " + *g);
  for (const auto& s : m_slots) {
    if (s.role == core::Role::in) continue;
    auto out = args.outputs.find(s.name);
    if (out == args.outputs.end()) return util::fail("", "the caller gave no output '" + s.name + "'");
    util::parallel_copy(out->second, arena.data(s), s.bytes);
  }
  return {};
}

}  // namespace kwb::eval
