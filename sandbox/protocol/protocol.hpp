#pragma once
// Wire protocol between the trusted evaluator and kwb-runner (the process that loads a candidate).
// Line-delimited JSON: commands on k_cmd_fd into the runner, replies on k_reply_fd. Tensors live in
// a shared memory file (memfd) on k_shm_fd that the evaluator lays out, fills with inputs, poisons
// and checks; the runner only maps it and calls the candidate on it. The runner never sees a seed
// or an expected output (docs/evaluation.md "Anti-cheat rules", rule 1).
//
// Commands (evaluator -> runner), one JSON object per line:
//   {"op":"load","so":"/job/candidate.so","entry":"kwb_softmax_f32"}
//   {"op":"map","shm_bytes":N,"buffers":[{"offset":O,"bytes":B,"output":true}...],"params":[...]
//    [,"at":A][,"scalars":[doubles]]}               kwb-runner: "at" maps the memfd at linear
//                                                   address A (MAP_FIXED_NOREPLACE; a range taken
//                                                   there is an error), so two runners timed
//                                                   against each other see their buffers at the
//                                                   same addresses (eval/runner_client.cpp);
//                                                   "scalars": the spec's scalars, after the params
//   {"op":"call"}                                   one call, outputs left for the evaluator
//   {"op":"time","calls":K,"flush_bytes":F}         K timed calls; before each (untimed): touch F
//                                                   bytes to evict caches, poison outputs (0xFF)
//   {"op":"stats"}                                  {"discarded":N}: samples retaken since the last
//                                                   stats because the thread was preempted
//   {"op":"quit"}
//   {"op":"time","calls":K,"flush_bytes":F,"paced":true}
//                                                   (kwb-runner, --fds with GO,DONE) paced timing:
//                                                   acknowledged with {"ok":true,"paced":true};
//                                                   then per call the evaluator poisons, flushes
//                                                   and writes 'g' on GO, the runner calls and
//                                                   writes its own duration (int64 ns, 8 bytes) on
//                                                   DONE; 'e' on GO ends the batch (no reply). The
//                                                   evaluator's timestamps are the samples.
//   {"op":"time",...,"paced":true}                  (kwb-gpu-runner, a cuda-launcher loaded, --fds
//                                                   with GO,DONE) acknowledged the same way; then
//                                                   per sample: 'p' on GO -> the runner prepares
//                                                   (poison, flush, device idle) and writes 'r' (or
//                                                   'x': failed) on DONE; 'g' on GO -> it times the
//                                                   call by events and writes {int64 ns, int64
//                                                   flags} (1 throttled, 2 failed) on DONE; 'e'
//                                                   ends. A failure's reason follows as a second
//                                                   reply to the time command. The evaluator raises
//                                                   each figure to its own window less an allowance
//                                                   (eval/runner_client_gpu_paced.cpp).
// Every command carries "seq" (1, 2, ...: its number in the session) and every reply echoes it.
// Replies: {"ok":true,"seq":N[,"ns":[...]]} or {"ok":false,"seq":N,"error":"..."}; "ns" are
// per-call durations from CLOCK_MONOTONIC read by raw syscall (not the vDSO). The evaluator
// trusts none of it (eval/runner_client_reply.hpp): a reply that is not a well-typed answer to
// the command just sent, or one more reply than commands, is a sandbox_violation.
//
// kwb-gpu-runner (cuda form, docs/cuda.md) speaks the same protocol on the same arena: one device
// allocation mirrors the whole arena; `call` and `time` copy it to the device first and back at
// the end; "ns" are CUDA-event times. Its load differs and it adds commands:
//   {"op":"device"[,"driver":"/kwb/driver/libcuda.so.1"]}   (first; "driver" only for KWB_CUDA_DRIVER)
//                      -> {"ok":true,"present":false,"reason":"no CUDA device: ..."} or the
//                         identity: name, cc_major/minor, sms, l2_bytes, l2_persisting_bytes,
//                         driver, pci_bus_id, ...
//   {"op":"load","cubin":"/job/config-0.cubin",
//    "kernels":[{"name":"k","args":[["tensor",0],["param",1],["workspace",0]]}...],
//    "strict_l2":bool}  (the code sets L2 eviction policies: every timed sample then starts on an
//                        idle device with persisting L2 lines reset)
//   {"op":"dims","launches":[{"grid":[x,y,z],"block":[x,y,z],"smem":N}...],"workspace_bytes":W}
//                         (per workload and config, after map; evaluated by the trusted side)
//                      -> {"ok":true,"occupancy":[blocks per SM of each launch]} (the driver's
//                         cuOccupancyMaxActiveBlocksPerMultiprocessor; absent where it has none);
//                         load answers {"ok":true,"kernels":[{name, registers, static_smem,
//                         local_bytes, max_threads}]} (cuFuncGetAttribute)
//   {"op":"stats"}     -> {"discarded":N,"throttled_kept":M,"sm_clock_min_mhz":..,...} since the
//                         last stats (samples retaken because the SM clock throttled)
//   {"op":"calibrate"} -> {"copy_bytes_per_s":..,"fma_flops_per_s":..}
// Its errors carry a tag the evaluator maps to a status: "[no_device] " no_device, "[launch] "
// rejected, "[fault] " crashed.
//
// kwb-nvrtc-worker (--fds CMD,REPLY; the compile sandbox) answers on the same kind of pipes:
//   {"op":"version"}   -> {"ok":true,"nvrtc":"13.0","archs":[...]}
//   {"op":"compile","name":"candidate.cu","source":"...","options":["--gpu-architecture=sm_90a",..]}
//                      -> {"ok":true,"compiled":bool,"result":"NVRTC_SUCCESS","log":"...",
//                          "l2_policy":"createpolicy" (the PTX's first L2 eviction-policy
//                          instruction, "" when none), "cubin_bytes":N,"ptx_bytes":M} followed by
//                          exactly N raw bytes of cubin, then M bytes of its PTX (the trusted
//                          side stores both and reads the compiler facts from the PTX and log)
//   {"op":"quit"}
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::wire {

constexpr size_t k_max_line = 1 << 20;  // a reply longer than this is a protocol violation

// Writes `msg` as one line; false when the pipe is closed.
bool write_line(int fd, const nlohmann::json& msg);

// Buffered line reader with a timeout per read.
class LineReader {
 public:
  enum class Status { ok, timeout, closed, too_long, bad_json };
  explicit LineReader(int fd) : m_fd(fd) {}
  // Waits up to timeout_ms (-1 = forever) for one complete line and parses it.
  Status read(nlohmann::json& out, int timeout_ms);
  // Bytes read from the pipe but not yet returned as a line.
  bool buffered() const { return !m_buffer.empty(); }

 private:
  int m_fd;
  std::string m_buffer;
};

}  // namespace kwb::wire
