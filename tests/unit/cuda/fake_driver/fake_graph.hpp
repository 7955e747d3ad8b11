#pragma once
// CUDA graphs in the fake driver (fake_graph.cpp), shared with fake_libcuda.cpp: a capture records
// kernel launches (their parameter values copied, as the driver does) instead of running them; a
// graph launch runs the recorded launches again, as replays.
#include <cuda.h>

#include <cstddef>

namespace fake_graph {

// Whether a stream capture is under way (the fake has one stream).
bool capturing();
// Records a launch of `f` with `count` 8-byte parameters into the graph being captured.
CUresult record(CUfunction f, unsigned grid, unsigned block, void** params, size_t count);

}  // namespace fake_graph

namespace fake_driver {

// Runs kernel `f` now (fake_libcuda.cpp); `replayed`: as a node of a graph launch.
CUresult run_kernel(CUfunction f, unsigned grid, unsigned block, void** params, bool replayed);

}  // namespace fake_driver
