// CUDA graphs in kwb-gpu-runner (docs/cuda.md "CUDA graphs"): the loaded plan captured into a
// graph and replayed, for the parent to verify a replay's outputs (`graph`) and to time launch-
// bound workloads by replay (`graph_time`).
//
// Capture: the plan's kernels (cuda form), or the candidate's host entry called with the runner's
// stream (cuda-launcher), between cuStreamBeginCapture and cuStreamEndCapture in the global
// capture mode, the mode PyTorch's torch.cuda.graph uses by default: a call that is unsafe while a
// capture is under way (cudaMalloc, a synchronous copy, a synchronisation) fails, the capture is
// invalidated, and the candidate is refused as one that cannot be deployed under graphs. Work the
// entry left outside the capture (another stream) has finished and is overwritten before the
// replay: the arena is uploaded again after the capture, so only the replay can write the outputs.
#include <algorithm>
#include <cmath>
#include <vector>

#include "gpu_runner/gpu_runner.hpp"

namespace kwb::gpu {

namespace {

constexpr unsigned long long k_instantiate_flags = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH;

// Kernel nodes of `g`, child graphs included; `all` counts every node.
void count_nodes(const CudaApi& cu, CUgraph g, size_t& kernels, size_t& all, int depth = 0) {
  size_t n = 0;
  if (cu.cuGraphGetNodes(g, nullptr, &n) != CUDA_SUCCESS || n == 0) return;
  std::vector<CUgraphNode> nodes(n);
  if (cu.cuGraphGetNodes(g, nodes.data(), &n) != CUDA_SUCCESS) return;
  for (size_t i = 0; i < n; ++i) {
    CUgraphNodeType type{};
    if (cu.cuGraphNodeGetType(nodes[i], &type) != CUDA_SUCCESS) continue;
    ++all;
    if (type == CU_GRAPH_NODE_TYPE_KERNEL) ++kernels;
    CUgraph child = nullptr;
    if (type == CU_GRAPH_NODE_TYPE_GRAPH && depth < 4 && cu.cuGraphChildGraphNodeGetGraph &&
        cu.cuGraphChildGraphNodeGetGraph(nodes[i], &child) == CUDA_SUCCESS)
      count_nodes(cu, child, kernels, all, depth + 1);
  }
}

struct ExecGuard {
  const CudaApi& cu;
  CUgraphExec exec = nullptr;
  ~ExecGuard() {
    if (exec) cu.cuGraphExecDestroy(exec);
  }
};

}  // namespace

std::string GpuRunner::capture_plan(CUgraphExec& exec, size_t& kernel_nodes) {
  exec = nullptr;
  kernel_nodes = 0;
#define KWB_CUDA_GRAPH_PRESENT(name) if (!m_cu.name) return "the CUDA driver lacks " #name " (CUDA graphs)";
  KWB_CUDA_GRAPH_FUNCTIONS(KWB_CUDA_GRAPH_PRESENT)
#undef KWB_CUDA_GRAPH_PRESENT
  const std::string who = m_launcher ? "the entry, called on a stream under capture," : "the plan";
  if (auto s = check(m_cu.cuStreamBeginCapture(m_stream, CU_STREAM_CAPTURE_MODE_GLOBAL), "beginning a stream capture");
      !s.empty())
    return s;
  std::string launched = launch_plan();
  CUgraph graph = nullptr;
  CUresult ended = m_cu.cuStreamEndCapture(m_stream, &graph);
  if (!launched.empty()) {
    if (graph) m_cu.cuGraphDestroy(graph);
    return launched;
  }
  if (ended != CUDA_SUCCESS || !graph)
    return "[graph] capturing " + who + " into a CUDA graph failed: " + m_cu.describe(ended) +
           (m_launcher ? " (under stream capture the entry may only enqueue work on its `stream`: no cudaMalloc, "
                         "synchronous copies or synchronisation; cudaMallocAsync and cudaFreeAsync on the stream "
                         "are allowed)"
                       : "");
  size_t all = 0;
  count_nodes(m_cu, graph, kernel_nodes, all);
  if (kernel_nodes == 0) {
    m_cu.cuGraphDestroy(graph);
    return "[graph] " + who + " captured into a CUDA graph gave an empty graph: no kernel node (" +
           std::to_string(all) + " node(s) in all); the graph would do nothing when replayed" +
           (m_launcher ? " (the entry must launch its kernels on `stream` also while it is being captured)" : "");
  }
  CUresult rc = m_cu.cuGraphInstantiate(&exec, graph, k_instantiate_flags);
  m_cu.cuGraphDestroy(graph);  // the executable graph is a copy
  if (rc != CUDA_SUCCESS) {
    exec = nullptr;
    return "[graph] instantiating the captured CUDA graph failed: " + m_cu.describe(rc);
  }
  // Whatever ran outside the capture (a launcher's other streams) is done before the arena is
  // uploaded again; a fault there is the candidate's.
  return check(m_cu.cuCtxSynchronize(), "[fault] the candidate failed while it was captured");
}

nlohmann::json GpuRunner::graph(const nlohmann::json& cmd) {
  if (auto s = prepare_args(); !s.empty()) return reply_error(s);
  std::string error;
  if (!load_helpers(error)) return reply_error(error);
  ExecGuard g{m_cu};
  size_t kernel_nodes = 0;
  if (auto s = capture_plan(g.exec, kernel_nodes); !s.empty()) return reply_error(s);
  // Every replay starts from the arena the parent prepared (inputs, poisoned outputs, armed
  // guards); only the last replay's arena comes back. Replays before it catch a graph that works
  // once only.
  const int replays = std::max(1, cmd.value("replays", 2));
  for (int r = 0; r < replays; ++r) {
    if (auto s = check(m_cu.cuMemcpyHtoD(m_arena, m_host, m_mapped), "copying the arena to the device"); !s.empty())
      return reply_error(s);
    if (m_workspace_bytes)
      if (auto s = check(m_cu.cuMemsetD8(m_workspace, 0, m_workspace_bytes), "zeroing the workspace"); !s.empty())
        return reply_error(s);
    if (auto s = dirty_shared_memory(); !s.empty()) return reply_error(s);
    if (auto s = check(m_cu.cuGraphLaunch(g.exec, m_stream), "[launch] launching the captured CUDA graph");
        !s.empty())
      return reply_error(s);
    if (auto s = check(m_cu.cuCtxSynchronize(), "[fault] the graph's replay failed"); !s.empty()) return reply_error(s);
  }
  if (auto s = check(m_cu.cuMemcpyDtoH(m_host, m_arena, m_mapped), "copying the arena back"); !s.empty())
    return reply_error(s);
  return {{"ok", true}, {"kernel_nodes", kernel_nodes}, {"replays", replays}};
}

nlohmann::json GpuRunner::graph_time(const nlohmann::json& cmd) {
  if (auto s = prepare_args(); !s.empty()) return reply_error(s);
  const int calls = std::max(1, cmd.at("calls").get<int>());
  if (auto s = ensure_flush_buffer(cmd.value("flush_bytes", size_t(0))); !s.empty()) return reply_error(s);
  std::string error;
  if (!load_helpers(error)) return reply_error(error);
  ExecGuard g{m_cu};
  size_t kernel_nodes = 0;
  if (auto s = capture_plan(g.exec, kernel_nodes); !s.empty()) return reply_error(s);
  if (auto s = check(m_cu.cuMemcpyHtoD(m_arena, m_host, m_mapped), "copying the arena to the device"); !s.empty())
    return reply_error(s);
  std::vector<int64_t> ns;
  ns.reserve(size_t(calls));
  if (auto s = m_launcher ? time_graph_one_by_one(g.exec, calls, ns) : time_graph_queued(g.exec, calls, ns); !s.empty())
    return reply_error(s);
  if (auto s = check(m_cu.cuCtxSynchronize(), "[fault] the graph's replay failed"); !s.empty()) return reply_error(s);
  if (auto s = check(m_cu.cuMemcpyDtoH(m_host, m_arena, m_mapped), "copying the arena back"); !s.empty())
    return reply_error(s);
  return {{"ok", true}, {"ns", ns}, {"kernel_nodes", kernel_nodes}};
}

// As time_queued (timing_batch.cpp), with one graph launch per sample in place of the plan's
// launches: the batch is queued whole, CUPTI's kernel records (graph kernels are recorded like
// any other) cut into samples where it recorded them all, the events' window otherwise.
std::string GpuRunner::time_graph_queued(CUgraphExec exec, int calls, std::vector<int64_t>& ns) {
  while (m_batch_events.size() < size_t(2 * calls)) {
    CUevent e = nullptr;
    if (auto s = check(m_cu.cuEventCreate(&e, CU_EVENT_DEFAULT), "creating timing events"); !s.empty()) return s;
    m_batch_events.push_back(e);
  }
  std::vector<std::string> names;
  for (const auto& k : m_kernels) names.push_back(k.name);
  const uint64_t since = m_use_cupti ? m_cupti.now() : 0;
  const bool each = reset_persisting_each_sample();
  if (!each) m_cu.cuCtxResetPersistingL2Cache();
  for (int i = 0; i < calls; ++i) {
    if (each)
      if (auto s = check(m_cu.cuStreamSynchronize(m_stream), "[fault] the graph's replay failed"); !s.empty()) return s;
    if (auto s = prepare_sample(); !s.empty()) return s;
    m_cu.cuEventRecord(m_batch_events[2 * i], m_stream);
    if (auto s = check(m_cu.cuGraphLaunch(exec, m_stream), "[launch] launching the captured CUDA graph"); !s.empty())
      return s;
    m_cu.cuEventRecord(m_batch_events[2 * i + 1], m_stream);
  }
  if (auto s = check(m_cu.cuEventSynchronize(m_batch_events[2 * calls - 1]), "[fault] the graph's replay failed");
      !s.empty())
    return s;
  unsigned clock = 0;
  if (throttled(clock)) m_throttled_kept += calls;  // kept: this row is reported, never decided on
  const size_t launches = size_t(calls) * m_kernels.size();
  size_t recorded = 0;
  std::vector<int64_t> spans =
      m_use_cupti ? m_cupti.take_each(names, since, m_kernels.size(), launches, recorded) : std::vector<int64_t>{};
  const bool by_cupti = spans.size() == size_t(calls);
  for (int i = 0; i < calls; ++i) {
    if (by_cupti && spans[size_t(i)] > 0) {
      ns.push_back(spans[size_t(i)]);
      ++m_cupti_samples;
      continue;
    }
    float ms = 0;
    m_cu.cuEventElapsedTime(&ms, m_batch_events[2 * i], m_batch_events[2 * i + 1]);
    ns.push_back(std::llround(double(ms) * 1e6));
    ++m_event_samples;
  }
  return {};
}

// A launcher's graph, by CUDA events one sample at a time (as time_one_by_one): its host code does
// not run at replay, but its stream's state is reset before every sample all the same.
std::string GpuRunner::time_graph_one_by_one(CUgraphExec exec, int calls, std::vector<int64_t>& ns) {
  for (int i = 0; i < calls; ++i) {
    if (auto s = prepare_sample(); !s.empty()) return s;
    m_cu.cuEventRecord(m_start, m_stream);
    if (auto s = check(m_cu.cuGraphLaunch(exec, m_stream), "[launch] launching the captured CUDA graph"); !s.empty())
      return s;
    m_cu.cuEventRecord(m_stop, m_stream);
    if (auto s = check(m_cu.cuEventSynchronize(m_stop), "[fault] the graph's replay failed"); !s.empty()) return s;
    float ms = 0;
    m_cu.cuEventElapsedTime(&ms, m_start, m_stop);
    ns.push_back(std::llround(double(ms) * 1e6));
    ++m_event_samples;
  }
  return {};
}

}  // namespace kwb::gpu
