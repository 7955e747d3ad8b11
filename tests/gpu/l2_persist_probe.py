#!/usr/bin/env python3
"""Can a kernel keep its data in L2 across the workbench's flush by marking it evict_last (the
PTX cache policy behind CUDA's persisting accesses)? Decides where the runner must reset
persisting lines (sandbox/gpu_runner/timing_batch.cpp; docs/cuda.md "Timing"). Needs cupy.

Usage: l2_persist_probe.py [MIB] [SAMPLES]   (default 8 100; MIB well below the set-aside tried)

A read of MIB MiB (fits in L2) is timed by CUDA events (queued behind a 20 us spin, so the
window holds no launch latency), medians of SAMPLES, after:
  cold      the runner's flush (a read-only pass over 2 x L2);
  warm      nothing (the data is in L2 from the previous read);
  normal-then-flush       a pass that loads the data normally, then the flush (the control);
  evict_last-then-flush   a pass that loads the data with an L2::evict_last policy, then the flush;
  ... + sync              the same with the device idle between the pass and the flush;
  ... + reset             ... and cuCtxResetPersistingL2Cache called there (it acts when called, not
                          in stream order, hence the idle device);
each with the persisting set-aside at 0 (the default) and at half of L2.
Data that survives the flush reads like `warm`.
"""
import ctypes
import statistics
import sys

import cupy as cp

mib = int(sys.argv[1]) if len(sys.argv) > 1 else 8
samples = int(sys.argv[2]) if len(sys.argv) > 2 else 100
source = r'''
extern "C" __global__ void read_normal(const float4* x, unsigned long long n, float* sink) {
  float acc = 0.f;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) { float4 v = x[i]; acc += v.x + v.y + v.z + v.w; }
  if (acc == 1234.5f) *sink = acc;
}
extern "C" __global__ void read_evict_last(const float4* x, unsigned long long n, float* sink) {
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  float acc = 0.f;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    float a, b, c, d;
    asm volatile("ld.global.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(x + i), "l"(policy));
    acc += a + b + c + d;
  }
  if (acc == 1234.5f) *sink = acc;
}
extern "C" __global__ void spin(unsigned long long ns) {  // keeps the queue ahead of the device
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}
extern "C" __global__ void l2_clean(const uint4* buf, unsigned long long words, unsigned* sink) {
  unsigned acc = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < words;
       i += (unsigned long long)gridDim.x * blockDim.x) { uint4 v = buf[i]; acc ^= v.x ^ v.y ^ v.z ^ v.w; }
  if (acc == 0x9E3779B9u) *sink = acc;
}
'''
module = cp.RawModule(code=source, options=("-arch=sm_90",))
read_normal, read_last, clean, spin = (module.get_function(n) for n in ("read_normal", "read_evict_last", "l2_clean", "spin"))
libcuda = ctypes.CDLL("libcuda.so.1")
device = cp.cuda.Device()
l2, sms = device.attributes["L2CacheSize"], device.attributes["MultiProcessorCount"]
x = cp.ones(mib * (1 << 20) // 4, dtype=cp.float32)
n = cp.uint64(x.size // 4)
flush = cp.zeros(2 * l2 // 4, dtype=cp.float32)
words = cp.uint64(flush.nbytes // 16)
sink = cp.zeros(16, dtype=cp.uint32)  # written only when a sum hits a magic value (never here)
grid, block = (sms * 4,), (512,)
start, stop = cp.cuda.Event(), cp.cuda.Event()


def timed(before):
    out = []
    for _ in range(samples):
        before()
        spin((1,), (32,), (cp.uint64(20000),))  # the timed read is queued, not launched into an idle device
        start.record()
        read_normal(grid, block, (x, n, sink))
        stop.record()
        stop.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, stop) * 1e3)
    return statistics.median(out)


def do_flush():
    clean(grid, block, (flush, words, sink))


def pass_then_flush(reader, sync=False, reset=False):
    def before():
        reader(grid, block, (x, n, sink))
        if sync:
            cp.cuda.Stream.null.synchronize()
        if reset and libcuda.cuCtxResetPersistingL2Cache() != 0:
            raise RuntimeError("cuCtxResetPersistingL2Cache failed")
        do_flush()
    return before


print(f"L2 {l2 >> 20} MiB, read of {mib} MiB, medians of {samples} (us)")
for set_aside in (0, l2 // 2):
    cp.cuda.runtime.deviceSetLimit(0x06, set_aside)  # cudaLimitPersistingL2CacheSize
    got = cp.cuda.runtime.deviceGetLimit(0x06)
    print(f"persisting set-aside {got >> 20} MiB: cold {timed(do_flush):.2f}  warm {timed(lambda: None):.2f}  "
          f"normal-then-flush {timed(pass_then_flush(read_normal)):.2f}  + sync + reset {timed(pass_then_flush(read_normal, True, True)):.2f}  "
          f"evict_last-then-flush {timed(pass_then_flush(read_last)):.2f}  + sync {timed(pass_then_flush(read_last, True)):.2f}  "
          f"+ sync + reset {timed(pass_then_flush(read_last, True, True)):.2f}")
