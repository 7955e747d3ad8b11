#include "eval/harness.hpp"

#include <cstring>

#include "eval/compare.hpp"
#include "eval/inputs.hpp"
#include "spec/loader.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"

namespace kwb::eval {

WorkloadHarness::WorkloadHarness(const core::Spec& spec, const core::Variant& variant, core::ReferenceFn reference,
                                 SharedArena& arena, RunnerSession& runner, const core::Workload& workload,
                                 core::WorkloadResult& result)
    : m_spec(spec), m_variant(variant), m_reference(reference), m_arena(arena), m_runner(runner),
      m_workload(workload), m_result(result) {}

std::string WorkloadHarness::context() const {
  return "workload " + m_workload.name + (m_distribution.empty() ? "" : " (inputs: " + m_distribution + ")");
}

std::optional<CheckFailure> WorkloadHarness::prepare() {
  m_slots.clear();
  for (const auto& t : m_spec.tensors) {
    auto shape = spec::tensor_shape(m_spec, t, m_workload.params);
    if (!shape) return CheckFailure{core::Status::error, shape.error().what()};
    TensorSlot s;
    s.name = t.name;
    s.role = t.role;
    s.dtype = m_variant.dtypes.at(t.name);
    s.shape = *shape;
    s.count = 1;
    for (auto d : s.shape) s.count *= size_t(d);
    s.bytes = s.count * core::dtype_size(s.dtype);
    m_slots.push_back(std::move(s));
  }
  if (auto r = m_arena.layout(m_slots); !r) return CheckFailure{core::Status::error, r.error().what()};
  std::vector<int64_t> params;
  for (const auto& p : m_spec.params) params.push_back(m_workload.params.at(p));
  if (auto r = m_runner.map(m_arena, m_slots, params); !r) return CheckFailure{r.error().status, r.error().reason};
  m_previous.clear();
  return std::nullopt;
}

WorkloadHarness::~WorkloadHarness() {
  if (m_reference_done.valid()) m_reference_done.wait();
}

void WorkloadHarness::await_reference() {
  if (m_reference_done.valid()) m_reference_done.get();
}

void WorkloadHarness::load_inputs(const core::Distribution& dist, uint64_t seed) {
  await_reference();  // it reads the inputs and writes the expected outputs about to be replaced
  m_distribution = dist.name;
  util::Rng rng(seed);
  core::ReferenceArgs args;
  args.variant = m_variant.name;
  args.params = m_workload.params;
  for (const auto& s : m_slots) {
    if (s.role != core::Role::out) {
      auto& buf = m_inputs[s.name];
      buf.resize(s.bytes);  // fill_tensor writes every element: no zeroing pass
      fill_tensor(buf.data(), s.dtype, s.count, dist.tensors.at(s.name), rng);
      util::parallel_copy(m_arena.data(s), buf.data(), s.bytes);
      args.inputs[s.name] = buf.data();
    }
    if (s.role != core::Role::in) {
      auto& want = m_expected[s.name];
      want.assign(s.count, 0.0);
      args.outputs[s.name] = &want;
    }
  }
  if (m_overlap)
    m_reference_done = std::async(std::launch::async, [ref = m_reference, args = std::move(args)] { ref(args); });
  else
    m_reference(args);
}

std::optional<CheckFailure> WorkloadHarness::run_and_verify(uint64_t guard_seed, unsigned char poison) {
  for (const auto& s : m_slots)  // inout tensors start from the input values
    if (s.role == core::Role::inout) std::memcpy(m_arena.data(s), m_inputs[s.name].data(), s.bytes);
  m_arena.poison_outputs(poison);
  for (const auto& s : m_slots)
    if (s.role == core::Role::inout) std::memcpy(m_arena.data(s), m_inputs[s.name].data(), s.bytes);
  m_arena.arm_guards(guard_seed);
  if (auto r = m_runner.call(); !r) return CheckFailure{r.error().status, context() + ": " + r.error().reason};
  return verify("", poison);
}

std::optional<CheckFailure> WorkloadHarness::verify(const std::string& when, unsigned char poison) {
  await_reference();
  ++m_result.checks;
  std::string where = context() + when;
  if (auto g = m_arena.check_guards()) return CheckFailure{core::Status::incorrect, where + ": " + *g};
  for (const auto& s : m_slots) {
    if (s.role != core::Role::in) continue;
    const auto& mine = m_inputs[s.name];
    if (util::parallel_equal(mine.data(), m_arena.data(s), s.bytes)) continue;
    size_t esz = core::dtype_size(s.dtype), i = 0;
    while (i < s.count && std::memcmp(mine.data() + i * esz, m_arena.data(s) + i * esz, esz) == 0) ++i;
    auto idx = unravel(int64_t(i), s.shape);
    std::string at;
    for (size_t k = 0; k < idx.size(); ++k) at += (k ? ", " : "") + std::to_string(idx[k]);
    return CheckFailure{core::Status::incorrect,
                        where + ": input " + s.name + " was modified by the kernel (first change at [" + at +
                            "]); inputs are read-only in this spec"};
  }
  for (const auto& s : m_slots) {
    if (s.role == core::Role::in) continue;
    const auto& tol = m_variant.tolerance.at(s.name);
    auto c = compare_output(m_arena.data(s), s.dtype, m_expected[s.name], tol, s.shape, s.name, poison);
    m_result.max_abs_err = std::max(m_result.max_abs_err, c.max_abs_err);
    m_result.max_rel_err = std::max(m_result.max_rel_err, c.max_rel_err);
    if (c.ok()) continue;
    m_result.correct = false;
    m_result.mismatches += c.mismatches;
    if (!m_result.first_mismatch) m_result.first_mismatch = c.first;
    std::string reason = where + ": " + describe_mismatch(c, tol, s.count, s.shape, s.name);
    auto prev = m_previous.find(s.name);
    if (prev != m_previous.end() && std::memcmp(prev->second.data(), m_arena.data(s), s.bytes) == 0)
      reason += "; the output is identical to the one for the previous, different inputs: results cached "
                "across calls (by pointer or shape)?";
    return CheckFailure{core::Status::incorrect, reason};
  }
  for (const auto& s : m_slots)
    if (s.role != core::Role::in) {
      m_previous[s.name].resize(s.bytes);
      util::parallel_copy(m_previous[s.name].data(), m_arena.data(s), s.bytes);
    }
  return std::nullopt;
}

std::optional<CheckFailure> WorkloadHarness::check_determinism(uint64_t guard_seed) {
  std::map<std::string, std::vector<char>> first;
  for (const auto& s : m_slots)
    if (s.role != core::Role::in) first[s.name].assign(m_arena.data(s), m_arena.data(s) + s.bytes);
  // The second run starts from a finite poison (0x7F bytes), so an element the kernel never
  // writes cannot pass where the expected value happens to be NaN.
  if (auto f = run_and_verify(guard_seed, 0x7f)) {
    f->reason += " (on the second run with the same inputs; the first run was correct)";
    return f;
  }
  if (!m_spec.deterministic) return std::nullopt;
  for (const auto& s : m_slots) {
    if (s.role == core::Role::in) continue;
    const auto& a = first[s.name];
    if (std::memcmp(a.data(), m_arena.data(s), s.bytes) == 0) continue;
    size_t esz = core::dtype_size(s.dtype), i = 0;
    while (i < s.count && std::memcmp(a.data() + i * esz, m_arena.data(s) + i * esz, esz) == 0) ++i;
    auto idx = unravel(int64_t(i), s.shape);
    std::string at;
    for (size_t k = 0; k < idx.size(); ++k) at += (k ? ", " : "") + std::to_string(idx[k]);
    m_result.correct = false;
    return CheckFailure{core::Status::incorrect,
                        context() + ": output " + s.name + " differs between two runs on the same inputs (first at [" +
                            at + "]: " + std::to_string(core::load_as_double(a.data(), s.dtype, i)) + " then " +
                            std::to_string(core::load_as_double(m_arena.data(s), s.dtype, i)) +
                            "); this spec requires deterministic results"};
  }
  return std::nullopt;
}

}  // namespace kwb::eval
