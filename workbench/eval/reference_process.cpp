#include "eval/reference_process.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "core/reference_abi.h"
#include "spec/loader.hpp"
#include "util/fs.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"

namespace kwb::eval {

namespace {

constexpr const char* k_object_inside = "/job/reference.so";

void copy_name(char (&to)[KWB_REF_NAME], const std::string& from) {
  std::memset(to, 0, sizeof to);
  std::memcpy(to, from.data(), std::min(from.size(), sizeof to - 1));
}

}  // namespace

util::Result<std::unique_ptr<ReferenceProcess>> ReferenceProcess::start(const ReferenceProcessConfig& cfg,
                                                                       const core::Spec& spec,
                                                                       const std::string& object) {
  auto arena = SharedArena::create();
  if (!arena) return std::unexpected(arena.error());
  std::unique_ptr<ReferenceProcess> p(new ReferenceProcess(spec, std::move(*arena)));
  auto job = util::make_unique_dir(cfg.jobs_dir, "ref-");
  if (!job) return std::unexpected(job.error());
  p->m_job = *job;
  if (auto w = util::write_file_atomic(p->m_job / "reference.so", object); !w) return std::unexpected(w.error());
  RunnerConfig rc;
  rc.runner = cfg.runner;
  rc.bwrap = cfg.bwrap;
  rc.job_dir = p->m_job;
  rc.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  rc.command_timeout_ms = cfg.timeout_ms;
  rc.memory_bytes = cfg.memory_bytes;
  rc.cpu_seconds = 24 * 3600;  // every compute has its own deadline; this is the session's backstop
  rc.who = "the reference";
  auto runner = RunnerSession::start(rc, p->m_arena);
  if (!runner) return std::unexpected(runner.error());
  p->m_runner = std::move(*runner);
  if (auto r = p->m_runner->load(k_object_inside, "kwb_reference_entry"); !r)
    return util::fail("", "its compiled object does not load: " + r.error().reason);
  return p;
}

ReferenceProcess::~ReferenceProcess() {
  m_runner.reset();
  std::error_code ec;
  if (!m_job.empty()) std::filesystem::remove_all(m_job, ec);
}

bool ReferenceProcess::reusable() {
  std::lock_guard lock(m_mutex);
  return !m_dead && m_runner;
}

util::Result<void> ReferenceProcess::compute(const core::ReferenceArgs& args, bool keep_outputs) {
  std::lock_guard lock(m_mutex);
  if (m_dead) return util::fail("", *m_dead);
  auto r = compute_locked(args, keep_outputs);
  if (!r && !m_runner) m_dead = r.error().what();
  return r;
}

util::Result<void> ReferenceProcess::compute_locked(const core::ReferenceArgs& args, bool keep_outputs) {
  const core::Variant* variant = m_spec.find_variant(args.variant);
  if (!variant) return util::fail("", "no variant '" + args.variant + "'");
  // The block, then per tensor its input (in its dtype) and its output (doubles).
  std::vector<TensorSlot> slots;
  TensorSlot header;
  header.name = "(the reference's argument block)";
  header.dtype = core::DType::u8;
  header.count = header.bytes = sizeof(kwb_ref_block);
  slots.push_back(header);
  struct Tensor {
    size_t slot;
    bool output;
    const core::TensorSpec* spec;
  };
  std::vector<Tensor> tensors;
  for (const auto* tp : m_spec.tensors_of(*variant)) {  // an optional tensor the variant omits is not passed
    const core::TensorSpec& t = *tp;
    auto shape = spec::tensor_shape(m_spec, t, args.params);
    if (!shape) return std::unexpected(shape.error());
    size_t count = 1;
    for (auto d : *shape) count *= size_t(d);
    for (bool output : {false, true}) {
      if (output ? t.role == core::Role::in : t.role == core::Role::out) continue;
      TensorSlot s;
      s.name = t.name;
      s.role = output ? core::Role::out : core::Role::in;
      s.dtype = output ? core::DType::f64 : variant->dtypes.at(t.name);
      s.shape = *shape;
      s.count = count;
      s.bytes = count * core::dtype_size(s.dtype);
      tensors.push_back({slots.size(), output, &t});
      slots.push_back(s);
    }
  }
  if (tensors.size() > KWB_REF_MAX_TENSORS || args.params.size() > KWB_REF_MAX_PARAMS ||
      args.scalars.size() > KWB_REF_MAX_SCALARS)
    return util::fail("", "too many tensors, params or scalars for the reference interface");
  // A workload's input sets come one after another: the layout and the process's mapping stay.
  const bool relayout = !same_layout(slots, m_slots);
  if (relayout) {
    m_slots.clear();
    if (auto l = m_arena.layout(slots); !l) return std::unexpected(l.error());
  } else {
    slots = m_slots;
  }

  // KWB_HARNESS_TRACE=1: where a large compute's time goes (copies in, the call, copies out).
  static const bool trace = std::getenv("KWB_HARNESS_TRACE") != nullptr;
  auto t0 = std::chrono::steady_clock::now();
  auto lap = [&](const char* what) {
    auto now = std::chrono::steady_clock::now();
    if (trace && slots.size() > 1 && slots.back().bytes >= (size_t(1) << 20))
      std::fprintf(stderr, "kwb reference: %-8s %8.2f ms %7.1f MiB%s\n", what,
                   std::chrono::duration<double, std::milli>(now - t0).count(), double(slots.back().bytes) / (1 << 20),
                   relayout ? " (new layout)" : "");
    t0 = now;
  };
  auto* block = reinterpret_cast<kwb_ref_block*>(m_arena.data(slots[0]));
  std::memset(block, 0, sizeof *block);
  block->magic = KWB_REF_MAGIC;
  block->abi = KWB_REF_ABI;
  copy_name(block->variant, args.variant);
  for (const auto& [name, value] : args.params) {
    copy_name(block->params[block->n_params].name, name);
    block->params[block->n_params++].value = value;
  }
  for (const auto& [name, value] : args.scalars) {
    copy_name(block->scalars[block->n_scalars].name, name);
    block->scalars[block->n_scalars++].value = value;
  }
  for (const auto& t : tensors) {
    const TensorSlot& s = slots[t.slot];
    kwb_ref_tensor& d = block->tensors[block->n_tensors++];
    copy_name(d.name, s.name);
    d.role = t.output ? KWB_REF_OUTPUT : KWB_REF_INPUT;
    d.dtype = uint32_t(s.dtype);
    d.offset = s.offset - slots[0].offset;
    d.count = s.count;
    // The caller's outputs go in as they are (an element the reference does not write keeps
    // them), or zeros where the caller keeps nothing (compute_fresh: no 8-byte-per-element copy).
    auto in = args.inputs.find(s.name);
    auto out = args.outputs.find(s.name);
    if (t.output ? out == args.outputs.end() : in == args.inputs.end())
      return util::fail("", fmt::format("the caller gave no {} '{}'", t.output ? "output" : "input", s.name));
    if (t.output && !keep_outputs)
      util::parallel_fill(m_arena.data(s), 0, s.bytes);
    else
      util::parallel_copy(m_arena.data(s), t.output ? static_cast<const void*>(out->second) : in->second, s.bytes);
  }
  block->status = KWB_REF_PENDING;
  m_arena.arm_guards(util::secret_seed());
  lap("copy_in");

  auto gone = [&](const std::string& why) {
    m_runner.reset();  // the process is killed; later calls repeat why
    return util::fail("", why);
  };
  if (relayout) {
    if (auto r = m_runner->map(m_arena, slots, {}); !r) return gone(r.error().reason);
    m_slots = slots;
  }
  lap("map");
  ++m_calls;
  if (auto r = m_runner->call("computing the expected outputs"); !r) return gone(r.error().reason);
  lap("call");
  if (auto g = m_arena.check_guards())
    return gone("it wrote outside its buffers: " + *g + " (an out-of-bounds write in reference.cpp)");
  if (block->status == KWB_REF_FAILED)
    return util::fail("", std::string(block->message, strnlen(block->message, sizeof block->message)));
  if (block->status != KWB_REF_DONE) return gone("it returned without reporting that it finished (it overwrote its argument block?)");
  for (const auto& t : tensors)
    if (t.output) util::parallel_copy(args.outputs.at(slots[t.slot].name), m_arena.data(slots[t.slot]), slots[t.slot].bytes);
  lap("copy_out");
  return {};
}

}  // namespace kwb::eval
