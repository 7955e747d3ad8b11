#!/usr/bin/env python3
"""Where does a kernel's slow timing mode come from: buffer placement, the flush buffer, the
process, or how samples are queued? (issue #5, repeat spread; docs/benchmarks/h200.md "Repeat
spread"). Needs cupy; runs outside the workbench, but samples as its GPU runner does
(sandbox/gpu_runner/timing_batch.cpp): one device arena per workload with 4 KiB guard zones
around each tensor, outputs poisoned with 0xFF before every sample, L2 evicted by a read-only
pass over 2 x L2 (kwb_l2_clean), the kernel between two CUDA events.

Usage: [PROBE_MODE=queued|settle] placement_probe.py [ROWS] [ARENAS] [SAMPLES]   (default 4096 4 300)

Times kernels/transpose/cuda/tiled_smem.cu (cupy's NVRTC) and prints one line per process; run
it in several processes to compare them.
  default  ARENAS fresh arenas (earlier ones stay allocated, so each gets other device pages),
           SAMPLES launches each, one at a time; then the first arena again; then the first arena
           with a freshly allocated flush buffer: the share of samples in the slow mode (above
           this process's fastest decile + 2 %) per block.
  queued   12 rounds as an evaluation times them (upload the arena, 64 samples queued and
           synchronised once, download): the slow share per round.
  settle   queued blocks with an idle spin of 0-20 us on the device between the flush and the
           kernel, and without poisoning: does either remove the slow mode?
"""
import os
import statistics
import sys

import cupy as cp

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
arenas = int(sys.argv[2]) if len(sys.argv) > 2 else 4
samples = int(sys.argv[3]) if len(sys.argv) > 3 else 300
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
source = open(os.path.join(root, "kernels/transpose/cuda/tiled_smem.cu")).read()
kernel = cp.RawModule(code=source, options=("-std=c++17",)).get_function("transpose_f32")
clean = cp.RawKernel(r'''
extern "C" __global__ void l2_clean(const uint4* buf, unsigned long long words, unsigned* sink) {
  unsigned acc = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < words;
       i += (unsigned long long)gridDim.x * blockDim.x) { uint4 v = buf[i]; acc ^= v.x ^ v.y ^ v.z ^ v.w; }
  if (acc == 0x9E3779B9u) *sink = acc;
}''', "l2_clean")
device = cp.cuda.Device()
l2, sms = device.attributes["L2CacheSize"], device.attributes["MultiProcessorCount"]
sink = cp.zeros(16, dtype=cp.uint32)
guard, tensor = 4096, rows * rows * 4
grid, block = ((rows + 31) // 32, (rows + 31) // 32), (32, 8)
start, stop = cp.cuda.Event(), cp.cuda.Event()


def new_flush():
    return cp.zeros(2 * l2 // 4, dtype=cp.float32)


def new_arena():
    """x and y where the workbench's arena puts them: guard, x, guard, guard, y, guard."""
    base = cp.empty(4 * guard + 2 * tensor, dtype=cp.uint8)
    x = base[guard:guard + tensor].view(cp.float32)
    y = base[3 * guard + tensor:3 * guard + 2 * tensor].view(cp.float32)
    x[...] = cp.random.default_rng(0).standard_normal(rows * rows, dtype=cp.float32)
    return base, x, y


def timed_block(x, y, flush):
    out = []
    words = cp.uint64(flush.nbytes // 16)
    for _ in range(samples):
        cp.cuda.runtime.memsetAsync(y.data.ptr, 0xFF, y.nbytes, cp.cuda.get_current_stream().ptr)
        clean((sms * 4,), (512,), (flush, words, sink))
        start.record()
        kernel(grid, block, (x, y, cp.int64(rows), cp.int64(rows)))
        stop.record()
        stop.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, stop) * 1e3)  # us
    return out


settle = cp.RawKernel(r'''
extern "C" __global__ void settle(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}''', "settle")


def queued_block(x, y, flush, n, settle_ns=0, poison=True):
    """n samples queued whole and synchronised once, as the runner's cuda-form batches; settle_ns:
    an idle spin on the device between the flush and the kernel."""
    words = cp.uint64(flush.nbytes // 16)
    events = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(n)]
    for a, b in events:
        if poison:
            cp.cuda.runtime.memsetAsync(y.data.ptr, 0xFF, y.nbytes, cp.cuda.get_current_stream().ptr)
        clean((sms * 4,), (512,), (flush, words, sink))
        if settle_ns:
            settle((1,), (32,), (cp.uint64(settle_ns),))
        a.record()
        kernel(grid, block, (x, y, cp.int64(rows), cp.int64(rows)))
        b.record()
    events[-1][1].synchronize()
    return [cp.cuda.get_elapsed_time(a, b) * 1e3 for a, b in events]


def run_queued():
    """Rounds as an evaluation times them: upload the arena, a queued batch, download it."""
    flush = new_flush()
    base, x, y = new_arena()
    host = cp.asnumpy(base)
    blocks = []
    for r in range(12):
        base.set(host)
        blocks.append((f"r{r}", queued_block(x, y, flush, 64)))
        host = cp.asnumpy(base)
    every = sorted(v for _, b in blocks for v in b)
    slow = every[len(every) // 10] * 1.02
    parts = [f"{sum(v > slow for v in b) * 100 // len(b)}" for name, b in blocks]
    print(f"pid {os.getpid()} queued p10 {every[len(every) // 10]:.2f}us median {statistics.median(every):.2f}us "
          f"slow share per round %: " + " ".join(parts))


def run_settle():
    """Does an idle gap between the flush and the kernel (or no poisoning) remove the slow mode?"""
    flush = new_flush()
    base, x, y = new_arena()
    variants = [(0, True), (2000, True), (5000, True), (10000, True), (20000, True), (0, False), (5000, False)]
    results = []
    for ns, poison in variants * 2:
        results.append(((ns, poison), queued_block(x, y, flush, 200, ns, poison)))
    every = sorted(v for _, b in results for v in b)
    slow = every[len(every) // 10] * 1.02
    line = []
    for (ns, poison), b in results:
        q = sorted(b)
        line.append(f"settle {ns // 1000}us{'' if poison else ' nopoison'}: p10 {q[len(q) // 10]:.2f} "
                    f"med {statistics.median(b):.2f} p90 {q[len(q) * 9 // 10]:.2f} slow {sum(v > slow for v in b) * 100 // len(b)}%")
    print(f"pid {os.getpid()}\n  " + "\n  ".join(line))


def run():
    flush = new_flush()
    held = [new_arena() for _ in range(arenas)]
    blocks = [(f"arena{a}", timed_block(held[a][1], held[a][2], flush)) for a in range(arenas)]
    blocks.append(("arena0 again", timed_block(held[0][1], held[0][2], flush)))
    flush2 = new_flush()
    blocks.append(("arena0 new flush", timed_block(held[0][1], held[0][2], flush2)))
    every = sorted(v for _, b in blocks for v in b)
    slow = every[len(every) // 10] * 1.02
    parts = [f"{name} {statistics.median(b):.2f}us/{sum(v > slow for v in b) * 100 // len(b)}%" for name, b in blocks]
    print(f"pid {os.getpid()} p10 {every[len(every) // 10]:.2f}us: " + "  ".join(parts))


if __name__ == "__main__":
    mode = os.environ.get("PROBE_MODE", "")
    run_queued() if mode == "queued" else run_settle() if mode == "settle" else run()
