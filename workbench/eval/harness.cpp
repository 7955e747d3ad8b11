#include "eval/harness.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "eval/compare.hpp"
#include "eval/inputs.hpp"
#include "spec/generators.hpp"
#include "spec/loader.hpp"
#include "eval/vector_pool.hpp"
#include "util/checksum.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"

namespace kwb::eval {

namespace {

// Adds the scope's wall time to *into (when there is one). KWB_HARNESS_TRACE=1 prints every
// step of the trusted side with its workload and size (where a large workload's time goes).
class ScopeTimer {
 public:
  explicit ScopeTimer(double* into, const char* what = nullptr, size_t bytes = 0)
      : m_into(into), m_what(what), m_bytes(bytes), m_start(std::chrono::steady_clock::now()) {}
  ~ScopeTimer() {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start).count();
    if (m_into) *m_into += ms;
    static const bool trace = std::getenv("KWB_HARNESS_TRACE") != nullptr;
    if (trace && m_what && m_bytes >= (size_t(1) << 20))
      std::fprintf(stderr, "kwb harness: %-12s %8.2f ms %7.1f MiB\n", m_what, ms, double(m_bytes) / (1 << 20));
  }

 private:
  double* m_into;
  const char* m_what;
  size_t m_bytes;
  std::chrono::steady_clock::time_point m_start;
};

template <class T>
void give_all(std::map<std::string, std::vector<T>>& buffers) {
  for (auto& [name, v] : buffers) VectorPool<T>::give(std::move(v));
  buffers.clear();
}

}  // namespace

WorkloadHarness::WorkloadHarness(const core::Spec& spec, const core::Variant& variant, Reference& reference,
                                 SharedArena& arena, RunnerSession& runner, const core::Workload& workload,
                                 core::WorkloadResult& result)
    : m_spec(spec), m_variant(variant), m_reference(reference), m_arena(arena), m_runner(runner),
      m_workload(workload), m_result(result) {}

std::string WorkloadHarness::context() const {
  return "workload " + m_workload.name + (m_distribution.empty() ? "" : " (inputs: " + m_distribution + ")");
}

std::optional<CheckFailure> WorkloadHarness::prepare() {
  m_slots.clear();
  for (const auto* t : m_spec.tensors_of(m_variant)) {  // an optional tensor the variant omits has no slot
    auto shape = spec::tensor_shape(m_spec, *t, m_workload.params);
    if (!shape) return CheckFailure{core::Status::error, shape.error().what()};
    TensorSlot s;
    s.name = t->name;
    s.role = t->role;
    s.dtype = m_variant.dtypes.at(t->name);
    s.shape = *shape;
    s.count = 1;
    for (auto d : s.shape) s.count *= size_t(d);
    s.bytes = s.count * core::dtype_size(s.dtype);
    if (m_least_aligned) s.misalign = core::tensor_alignment(m_spec, s.dtype) % 64;
    m_slots.push_back(std::move(s));
  }
  if (auto r = m_arena.layout(m_slots); !r) return CheckFailure{core::Status::error, r.error().what()};
  std::vector<int64_t> params;
  for (const auto& p : m_spec.params) params.push_back(m_workload.params.at(p));
  std::vector<double> scalars;
  for (const auto& sc : m_spec.scalars) {
    auto v = m_workload.scalars.find(sc.name);
    if (v == m_workload.scalars.end())
      return CheckFailure{core::Status::error, blame_spec(m_spec, "workload " + m_workload.name + " has no value for scalar '" +
                                                                      sc.name + "'")};
    scalars.push_back(v->second);
  }
  if (auto r = m_runner.map(m_arena, m_slots, params, scalars); !r)
    return CheckFailure{r.error().status, r.error().reason};
  m_previous_sums.clear();
  m_outputs_verified = false;
  m_previous_key = util::secret_seed();
  return std::nullopt;
}

WorkloadHarness::~WorkloadHarness() {
  if (m_reference_done.valid()) m_reference_done.wait();  // it holds references to this harness's vectors
  give_all(m_inputs);
  give_all(m_expected);
  give_all(m_first);
}

size_t WorkloadHarness::output_bytes() const {
  size_t bytes = 0;
  for (const auto& s : m_slots)
    if (s.role != core::Role::in) bytes += s.bytes;
  return bytes;
}

std::optional<CheckFailure> WorkloadHarness::await_reference() {
  if (m_reference_done.valid()) {
    ScopeTimer timer(m_times ? &m_times->reference_wait_ms : nullptr, "ref_wait", output_bytes());
    auto done = m_reference_done.get();
    if (!done) m_reference_failure = CheckFailure{core::Status::error, blame_spec(m_spec, context() + ": " + done.error().what())};
  }
  return m_reference_failure;
}

void WorkloadHarness::load_inputs(const core::Distribution& dist, uint64_t seed) {
  if (await_reference()) return;  // it reads the inputs and writes the expected outputs about to be replaced
  // The outputs the arena holds were verified for the inputs about to be replaced: their
  // checksums let a later mismatch say "identical to the previous inputs' output" (a cache).
  if (m_outputs_verified) {
    ScopeTimer checks(m_times ? &m_times->checks_ms : nullptr, "prev_sums", output_bytes());
    for (const auto& s : m_slots)
      if (s.role != core::Role::in) m_previous_sums[s.name] = util::keyed_checksum(m_arena.data(s), s.bytes, m_previous_key);
  }
  m_outputs_verified = false;
  m_have_expected = true;
  ScopeTimer timer(m_times ? &m_times->inputs_ms : nullptr);
  m_distribution = dist.name;
  m_dist = &dist;
  // Bounds written as expressions, evaluated for this workload (the loader checked them for every
  // published workload and drawn shape it tried; a failure here blames the spec).
  auto generators = spec::resolve_distribution(m_spec, spec::distribution_index(m_spec, dist), m_workload.params,
                                               "workload " + m_workload.name);
  if (!generators) {
    m_reference_failure = CheckFailure{core::Status::error, blame_spec(m_spec, context() + ": " + generators.error().what())};
    return;
  }
  m_generators = std::move(*generators);
  util::Rng rng(seed);
  m_input_key = rng.next();
  core::ReferenceArgs args;
  args.variant = m_variant.name;
  args.params = m_workload.params;
  args.scalars = m_workload.scalars;
  for (const auto& s : m_slots) {
    if (s.role != core::Role::out) {
      // Generated in place and checksummed (docs/evaluation.md "Anti-cheat rules", rule 3); the
      // reference reads the arena, which the runner's download overwrites with the same bytes
      // unless the kernel changed its inputs, which the checksum then reports. Inout tensors keep a
      // private copy: every call starts from it and the reference must see the values before the
      // kernel's.
      uint64_t fill_seed = rng.next();
      m_input_seeds[s.name] = fill_seed;
      {
        ScopeTimer t(nullptr, "fill", s.bytes);
        fill_tensor_seeded(m_arena.data(s), s.dtype, s.count, m_generators.at(s.name), fill_seed,
                           s.shape.empty() ? 0 : size_t(s.shape.back()));
      }
      ScopeTimer t(nullptr, "input_sum", s.bytes);
      m_input_sums[s.name] = util::keyed_checksum(m_arena.data(s), s.bytes, m_input_key);
      args.inputs[s.name] = m_arena.data(s);
      if (s.role == core::Role::inout) {
        auto& copy = m_inputs[s.name];
        VectorPool<char>::fit(copy, s.bytes);
        util::parallel_copy(copy.data(), m_arena.data(s), s.bytes);
        args.inputs[s.name] = copy.data();
      }
    }
    if (s.role != core::Role::in) {
      auto& want = m_expected[s.name];
      ScopeTimer t(nullptr, "expected_fit", s.count * sizeof(double));
      VectorPool<double>::fit(want, s.count);  // the reference writes every element
      args.outputs[s.name] = want.data();
    }
  }
  ScopeTimer start(nullptr, "ref_start", output_bytes());
  if (m_skip_reference) {
    m_have_expected = false;
  } else if (m_overlap) {
    m_reference_done = std::async(std::launch::async, [&ref = m_reference, args = std::move(args)] { return ref.compute_fresh(args); });
  } else if (auto done = m_reference.compute_fresh(args); !done) {
    m_reference_failure = CheckFailure{core::Status::error, blame_spec(m_spec, context() + ": " + done.error().what())};
  }
}

void WorkloadHarness::adopt_inputs(const WorkloadHarness& from, bool with_expected) {
  if (await_reference()) return;
  auto& source = const_cast<WorkloadHarness&>(from);  // waits for its reference: state, not contents
  if (with_expected && source.await_reference()) {
    m_reference_failure = source.m_reference_failure;
    return;
  }
  if (m_outputs_verified) {
    ScopeTimer checks(m_times ? &m_times->checks_ms : nullptr, "prev_sums", output_bytes());
    for (const auto& s : m_slots)
      if (s.role != core::Role::in) m_previous_sums[s.name] = util::keyed_checksum(m_arena.data(s), s.bytes, m_previous_key);
  }
  m_outputs_verified = false;
  ScopeTimer timer(m_times ? &m_times->inputs_ms : nullptr, "adopt", output_bytes());
  m_distribution = from.m_distribution;
  m_dist = from.m_dist;
  m_generators = from.m_generators;
  m_input_key = from.m_input_key;
  m_input_seeds = from.m_input_seeds;
  m_input_sums = from.m_input_sums;
  for (size_t i = 0; i < m_slots.size() && i < from.m_slots.size(); ++i) {
    const auto& s = m_slots[i];
    if (s.role == core::Role::out) continue;
    util::parallel_copy(m_arena.data(s), source.m_arena.data(from.m_slots[i]), s.bytes);
    if (s.role == core::Role::inout) {
      auto& copy = m_inputs[s.name];
      VectorPool<char>::fit(copy, s.bytes);
      util::parallel_copy(copy.data(), from.m_inputs.at(s.name).data(), s.bytes);
    }
  }
  m_have_expected = with_expected;
  if (!with_expected) return;
  for (const auto& s : m_slots) {
    if (s.role == core::Role::in) continue;
    auto& want = m_expected[s.name];
    const auto& theirs = from.m_expected.at(s.name);
    VectorPool<double>::fit(want, theirs.size());
    util::parallel_copy(want.data(), theirs.data(), theirs.size() * sizeof(double));
  }
}

std::optional<std::string> WorkloadHarness::cross_check(Reference& other, const std::string& other_name) {
  if (await_reference()) return std::nullopt;  // the next verify reports the first reference's failure
  core::ReferenceArgs args;
  args.variant = m_variant.name;
  args.params = m_workload.params;
  args.scalars = m_workload.scalars;
  std::map<std::string, std::vector<double>> got;
  for (const auto& s : m_slots) {
    if (s.role == core::Role::in) args.inputs[s.name] = m_arena.data(s);
    if (s.role == core::Role::inout) return context() + ": tensor " + s.name + " is inout (no second reference)";
    if (s.role == core::Role::out) {
      got[s.name].assign(s.count, 0.0);
      args.outputs[s.name] = got[s.name].data();
    }
  }
  if (auto done = other.compute(args); !done) return context() + ": " + done.error().what();
  for (const auto& s : m_slots) {
    if (s.role != core::Role::out) continue;
    for (const auto& o : compare_slot(s, got[s.name].data(), core::DType::f64, &got, 0xff)) {
      if (o.comparison.ok()) continue;
      return context() + ": " + other_name + " disagrees with the CPU reference (reference.cpp): " +
             describe_mismatch(o.comparison, *o.tol, o.slot->count, o.slot->shape, o.slot->name);
    }
  }
  return std::nullopt;
}

const TensorSlot* WorkloadHarness::slot(const std::string& name) const {
  for (const auto& s : m_slots)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<WorkloadHarness::OutputComparison> WorkloadHarness::compare_slot(
    const TensorSlot& s, const void* got, core::DType dtype, const std::map<std::string, std::vector<double>>* doubles,
    unsigned char poison) const {
  const core::TensorSpec* t = m_spec.find_tensor(s.name);
  for (const auto& other : m_spec.tensors)  // a set rule's values output is compared with its indices
    if (other.set && other.set->values == s.name) return {};
  const auto& tol = m_variant.tolerance.at(s.name);
  if (!t || !t->set) return {{&s, &tol, compare_output(got, dtype, m_expected.at(s.name), tol, s.shape, s.name, poison)}};
  // A set rule (docs/specs.md "Set outputs"): the values output's tolerance judges the values.
  const TensorSlot* of = slot(t->set->of);
  const TensorSlot* values = t->set->values.empty() ? nullptr : slot(t->set->values);
  const void* of_data = of->role == core::Role::inout ? static_cast<const void*>(m_inputs.at(of->name).data())
                                                      : static_cast<const void*>(m_arena.data(*of));
  TensorView got_values;
  if (values) got_values = doubles ? TensorView{doubles->at(values->name).data(), core::DType::f64}
                                   : TensorView{m_arena.data(*values), values->dtype};
  const core::Tolerance& value_tol = values ? m_variant.tolerance.at(values->name) : tol;
  auto c = compare_set(TensorView{got, dtype}, m_expected.at(s.name), got_values,
                       values ? &m_expected.at(values->name) : nullptr, TensorView{of_data, of->dtype},
                       of->shape.empty() ? 1 : of->shape.back(), value_tol, s.shape, s.name,
                       values ? values->name : std::string(), poison);
  std::vector<OutputComparison> out;
  if (values) out.push_back({values, &value_tol, std::move(c.values)});
  out.push_back({&s, &value_tol, std::move(c.indices)});
  return out;
}

std::optional<CheckFailure> WorkloadHarness::call_once(uint64_t guard_seed, unsigned char poison) {
  for (const auto& s : m_slots)  // inout tensors start from the input values
    if (s.role == core::Role::inout) util::parallel_copy(m_arena.data(s), m_inputs[s.name].data(), s.bytes);
  m_arena.poison_outputs(poison);
  for (const auto& s : m_slots)
    if (s.role == core::Role::inout) util::parallel_copy(m_arena.data(s), m_inputs[s.name].data(), s.bytes);
  m_arena.arm_guards(guard_seed);
  if (auto r = m_runner.call(); !r) return CheckFailure{r.error().status, context() + ": " + r.error().reason};
  return std::nullopt;
}

std::optional<CheckFailure> WorkloadHarness::run_and_verify(uint64_t guard_seed, unsigned char poison) {
  if (auto f = call_once(guard_seed, poison)) return f;
  return verify("", poison);
}

std::optional<CheckFailure> WorkloadHarness::run_unverified(uint64_t guard_seed) {
  m_outputs_verified = false;
  return call_once(guard_seed, 0xff);
}

std::optional<CheckFailure> WorkloadHarness::verify(const std::string& when, unsigned char poison) {
  if (auto f = await_reference()) return f;
  if (!m_have_expected)
    return CheckFailure{core::Status::error, context() + when + ": no expected outputs for these inputs (adopted without them)"};
  ScopeTimer timer(m_times ? &m_times->checks_ms : nullptr, "verify", output_bytes());
  ++m_result.checks;
  std::string where = context() + when;
  if (auto g = m_arena.check_guards()) return CheckFailure{core::Status::incorrect, where + ": " + *g};
  for (const auto& s : m_slots) {
    if (s.role != core::Role::in) continue;
    if (util::keyed_checksum(m_arena.data(s), s.bytes, m_input_key) == m_input_sums.at(s.name)) continue;
    // Changed: generate the original again to say where.
    std::vector<char> mine(s.bytes);
    fill_tensor_seeded(mine.data(), s.dtype, s.count, m_generators.at(s.name), m_input_seeds.at(s.name),
                       s.shape.empty() ? 0 : size_t(s.shape.back()));
    size_t esz = core::dtype_size(s.dtype), i = 0;
    while (i < s.count && std::memcmp(mine.data() + i * esz, m_arena.data(s) + i * esz, esz) == 0) ++i;
    auto idx = unravel(int64_t(i), s.shape);
    std::string at;
    for (size_t k = 0; k < idx.size(); ++k) at += (k ? ", " : "") + std::to_string(idx[k]);
    return CheckFailure{core::Status::incorrect,
                        where + ": input " + s.name + " was modified by the kernel (first change at [" + at +
                            "]); inputs are read-only in this spec"};
  }
  for (const auto& slot : m_slots) {
    if (slot.role == core::Role::in) continue;
    for (const auto& o : compare_slot(slot, m_arena.data(slot), slot.dtype, nullptr, poison)) {
      const auto& c = o.comparison;
      const TensorSlot& s = *o.slot;
      m_result.max_abs_err = std::max(m_result.max_abs_err, c.max_abs_err);
      m_result.max_rel_err = std::max(m_result.max_rel_err, c.max_rel_err);
      if (c.ok()) continue;
      m_result.correct = false;
      m_result.mismatches += c.mismatches;
      if (!m_result.first_mismatch) m_result.first_mismatch = c.first;
      std::string reason = where + ": " + describe_mismatch(c, *o.tol, s.count, s.shape, s.name);
      auto prev = m_previous_sums.find(s.name);
      if (prev != m_previous_sums.end() && util::keyed_checksum(m_arena.data(s), s.bytes, m_previous_key) == prev->second)
        reason += "; the output is identical to the one for the previous, different inputs: results cached "
                  "across calls (by pointer or shape)?";
      return CheckFailure{core::Status::incorrect, reason};
    }
  }
  m_outputs_verified = true;
  return std::nullopt;
}

std::optional<CheckFailure> WorkloadHarness::check_determinism(uint64_t guard_seed) {
  auto& first = m_first;
  for (const auto& s : m_slots)
    if (s.role != core::Role::in) {
      VectorPool<char>::fit(first[s.name], s.bytes);
      util::parallel_copy(first[s.name].data(), m_arena.data(s), s.bytes);
    }
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
    if (util::parallel_equal(a.data(), m_arena.data(s), s.bytes)) continue;
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
