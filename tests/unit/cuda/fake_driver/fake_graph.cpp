// CUDA graphs in the fake driver (fake_graph.hpp): stream capture of kernel launches, the graph's
// nodes, instantiation and replay. Only what kwb-gpu-runner (sandbox/gpu_runner/graph_replay.cpp)
// and the tests' launchers call is emulated: kernel launches are captured; other work enqueued
// while capturing runs at once, as if the stream were not captured.
#include "fake_graph.hpp"

#include <cstdint>
#include <vector>

namespace {

struct Node {
  CUfunction fn = nullptr;
  unsigned grid = 1, block = 1;
  std::vector<uint64_t> values;  // the parameters' values at capture
};
struct Graph {
  std::vector<Node> nodes;
};

Graph* g_capture = nullptr;  // the graph being captured, if any

}  // namespace

namespace fake_graph {

bool capturing() { return g_capture != nullptr; }

CUresult record(CUfunction f, unsigned grid, unsigned block, void** params, size_t count) {
  Node n{f, grid, block, {}};
  for (size_t i = 0; i < count; ++i) n.values.push_back(*static_cast<const uint64_t*>(params[i]));
  g_capture->nodes.push_back(std::move(n));
  return CUDA_SUCCESS;
}

}  // namespace fake_graph

extern "C" {

CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream, CUstreamCaptureMode) {
  if (g_capture) return CUDA_ERROR_ILLEGAL_STATE;
  g_capture = new Graph();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamEndCapture(CUstream, CUgraph* graph) {
  if (!g_capture) return CUDA_ERROR_ILLEGAL_STATE;
  *graph = reinterpret_cast<CUgraph>(g_capture);
  g_capture = nullptr;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamIsCapturing(CUstream, CUstreamCaptureStatus* status) {
  *status = g_capture ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphGetNodes(CUgraph graph, CUgraphNode* nodes, size_t* count) {
  auto* g = reinterpret_cast<Graph*>(graph);
  if (nodes)
    for (size_t i = 0; i < *count && i < g->nodes.size(); ++i) nodes[i] = reinterpret_cast<CUgraphNode>(&g->nodes[i]);
  *count = g->nodes.size();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode, CUgraphNodeType* type) {
  *type = CU_GRAPH_NODE_TYPE_KERNEL;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphChildGraphNodeGetGraph(CUgraphNode, CUgraph*) { return CUDA_ERROR_INVALID_VALUE; }
CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long) {
  *exec = reinterpret_cast<CUgraphExec>(new Graph(*reinterpret_cast<Graph*>(graph)));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphLaunch(CUgraphExec exec, CUstream) {
  for (auto& n : reinterpret_cast<Graph*>(exec)->nodes) {
    std::vector<void*> params;
    for (auto& v : n.values) params.push_back(&v);
    if (CUresult rc = fake_driver::run_kernel(n.fn, n.grid, n.block, params.data(), true); rc != CUDA_SUCCESS)
      return rc;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphDestroy(CUgraph graph) { return delete reinterpret_cast<Graph*>(graph), CUDA_SUCCESS; }
CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec exec) { return delete reinterpret_cast<Graph*>(exec), CUDA_SUCCESS; }

}  // extern "C"
