#!/usr/bin/env python3
"""Is a kernel's slow timing mode tied to where its buffers sit, or to time? (issue #5, repeat
spread; docs/benchmarks/h200.md "Repeat spread"). Needs cupy; runs outside the workbench.

Usage: placement_probe.py [ROWS] [ALLOCATIONS] [SAMPLES]   (default 4096 20 200)

Times kernels/transpose/cuda/tiled_smem.cu (compiled by cupy's NVRTC) on ALLOCATIONS fresh pairs
of buffers (the earlier pairs stay allocated, so each pair gets other device pages), SAMPLES
launches each, every launch after an L2-evicting write of 2 x L2 and between CUDA events. Then,
on the first pair again, five blocks of SAMPLES launches 0.2 s apart. Prints per block the
median and the share of samples in the slow mode (above the overall fastest decile + 2 %).
Placement-bound: blocks of one pair agree and pairs differ; time-bound: the reverse.
"""
import os
import statistics
import sys
import time

import cupy as cp

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
allocations = int(sys.argv[2]) if len(sys.argv) > 2 else 20
samples = int(sys.argv[3]) if len(sys.argv) > 3 else 200
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
source = open(os.path.join(root, "kernels/transpose/cuda/tiled_smem.cu")).read()
kernel = cp.RawModule(code=source, options=("-std=c++17",)).get_function("transpose_f32")
l2 = cp.cuda.Device().attributes["L2CacheSize"]
flush = cp.zeros(2 * l2 // 4, dtype=cp.float32)
grid, block = ((rows + 31) // 32, (rows + 31) // 32), (32, 8)
start, stop = cp.cuda.Event(), cp.cuda.Event()


def block_of(x, y):
    out = []
    for _ in range(samples):
        cp.add(flush, 1.0, out=flush)  # evicts L2
        start.record()
        kernel(grid, block, (x, y, cp.int64(rows), cp.int64(rows)))
        stop.record()
        stop.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, stop) * 1e3)  # us
    return out


def run():
    pairs, blocks = [], []
    for a in range(allocations):
        x = cp.random.default_rng(a).standard_normal(rows * rows, dtype=cp.float32)
        y = cp.empty_like(x)
        pairs.append((x, y))
        blocks.append((f"pair {a:2d} (x at {x.data.ptr:#x})", block_of(x, y)))
    for k in range(5):
        time.sleep(0.2)
        blocks.append((f"pair  0 again, block {k}", block_of(*pairs[0])))
    every = sorted(v for _, b in blocks for v in b)
    slow = every[len(every) // 10] * 1.02
    print(f"transpose {rows}x{rows}: fastest decile {every[len(every) // 10]:.2f} us; slow mode: > {slow:.2f} us")
    for name, b in blocks:
        share = sum(v > slow for v in b) / len(b)
        print(f"{name}: median {statistics.median(b):.2f} us, slow share {share * 100:3.0f} %")


if __name__ == "__main__":
    run()
