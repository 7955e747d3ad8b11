// Trusted timing of cuda-launcher candidates (issue 15 #12; protocol.hpp "paced",
// docs/security.md "Trusted GPU timing"). The launcher's host code shares kwb-gpu-runner's
// process, so the CUDA-event figure it reports is the candidate's to forge (patched driver code,
// a patched runner). This side brackets every sample with its own clock:
//
//   this side:  'p' on GO ........... runner: poison outputs, flush L2, wait for the device, 'r'
//               t_go, 'g' on GO ..... runner: start event, entry, stop event, wait (context too),
//               poll DONE, t_done      {event ns, flags} on DONE
//
// The events' window lies inside [t_go, t_done], so a figure above the window is forged (a
// violation), and every figure is raised to the window less k_handshake_allowance_ns, the most
// the handshake itself takes on an unloaded machine: a forged figure can then gain at most that
// allowance per sample, whatever it claims. A batch where most figures read less than half of the
// window left after the allowance, and over 1 ms less than the window, is judged forged outright
// (an honest sample would need the host to stall for over 1 ms and half the kernel's time, in
// most samples). Throttled samples (the runner's flag) are retaken, at
// most k_launcher_max_retakes times each, as the runner does for the cuda form.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "eval/runner_client.hpp"
#include "eval/runner_timing_util.hpp"

namespace kwb::eval {

namespace {

// What the handshake adds to the events' window: two pipe wake-ups, two event records, the
// synchronisations and the context check (docs/benchmarks/h200.md "Trusted launcher timing").
constexpr int64_t k_handshake_allowance_ns = 60'000;
// The events' window may exceed this side's by clock skew only.
constexpr int64_t k_window_slack_ns = 2'000;
constexpr int k_launcher_max_retakes = 2;
// A sample is grossly below its window when it reads under half of what is left after the
// allowance and more than 1 ms less than the window; a batch is judged forged when most of at
// least 3 samples are. On the H200 honest gaps were 24-36 us (p50-p90), 66 us at p99, and the
// first two samples of a session up to ~120 us; a host stall of 15 ms was seen once in 9157.
constexpr int64_t k_gross_gap_ns = 1'000'000;
constexpr int k_min_judged_samples = 3;
constexpr const char* k_launcher_timed_here = " (cuda-launcher samples are bracketed by the workbench's clock)";

using detail::monotonic_ns;
using detail::us;

}  // namespace

// Waits for `bytes` on the done pipe until `deadline`: 1 read, 0 closed, -1 timed out.
int RunnerSession::read_done(void* data, size_t bytes, std::chrono::steady_clock::time_point deadline) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    pollfd pfd{m_done_r, POLLIN, 0};
    int rc = ::poll(&pfd, 1, int(std::max<int64_t>(left, 0)));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return 0;
    }
    if (rc == 0) return -1;
    ssize_t n = ::read(m_done_r, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    p += n;
    bytes -= size_t(n);
  }
  return 1;
}

RunnerResult<std::vector<int64_t>> RunnerSession::gpu_paced_time(int calls, size_t flush_bytes, int timeout_ms,
                                                                  Copies copies) {
  const char* what = "timing";
  nlohmann::json cmd = {{"op", "time"}, {"calls", calls}, {"flush_bytes", flush_bytes}, {"paced", true}};
  if (!copies.upload) cmd["upload"] = false;
  auto gate = hold_gate();  // the whole paced batch and its fetch: the host entry launches in between
  auto ack = request(cmd, timeout_ms, what);
  if (!ack) return std::unexpected(ack.error());
  if (!ack->value("paced", false))
    return std::unexpected(violation(std::string("the runner did not start the paced timing it acknowledged") + k_launcher_timed_here));
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + std::chrono::milliseconds(timeout_ms);
  // The runner failed a sample: its reason comes as the time command's second reply.
  auto failed = [&]() -> RunnerFailure {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    auto reply = read_reply(int(std::max<int64_t>(left, 1000)), what);
    if (!reply) return reply.error();
    return violation(std::string("the runner's control channel was corrupted during timing: a failed sample without "
                                 "its reason") + k_launcher_timed_here);
  };
  auto send = [&](char c) { return ::write(m_go_w, &c, 1) == 1; };
  std::vector<int64_t> samples;
  samples.reserve(size_t(std::max(calls, 0)));
  int retakes = 0, gross = 0;
  int64_t gross_reported = 0, gross_window = 0;  // an example for the reason
  while (int(samples.size()) < calls) {
    if (!send('p')) return std::unexpected(classify_exit(what));
    char ready = 0;
    int got = read_done(&ready, 1, deadline);
    if (got < 0) return std::unexpected(timeout_failure(what, timeout_ms));
    if (got == 0) return std::unexpected(classify_exit(what));
    if (ready == 'x') return std::unexpected(failed());
    if (ready != 'r') return std::unexpected(violation(std::string("the runner's done pipe is out of step during timing") + k_launcher_timed_here));
    const int64_t t_go = monotonic_ns();
    if (!send('g')) return std::unexpected(classify_exit(what));
    int64_t msg[2] = {0, 0};
    got = read_done(msg, sizeof msg, deadline);
    const int64_t t_done = monotonic_ns();
    if (got < 0) return std::unexpected(timeout_failure(what, timeout_ms));
    if (got == 0) return std::unexpected(classify_exit(what));
    if (msg[1] & 2) return std::unexpected(failed());
    const int64_t window = t_done - t_go, reported = msg[0];
    if (reported < 0 || reported > window + k_window_slack_ns)
      return std::unexpected(violation("the runner reported a sample of " + us(reported) + " that the workbench saw take " +
                                       us(window) + ": the runner's figures were forged" + k_launcher_timed_here));
    if ((msg[1] & 1) && retakes < k_launcher_max_retakes) {  // throttled: take it again
      ++retakes;
      ++m_discarded;
      continue;
    }
    retakes = 0;
    const int64_t floor = window - k_handshake_allowance_ns;
    if (reported < floor) ++m_raised_to_window;
    if (floor > 0 && reported < floor / 2 && window - reported > k_gross_gap_ns) {
      ++gross;
      gross_reported = reported;
      gross_window = window;
    }
    static const bool trace = std::getenv("KWB_RUNNER_TRACE") != nullptr;
    if (trace) std::fprintf(stderr, "kwb runner: launcher sample %8.1f us, window %8.1f us\n", reported / 1e3, window / 1e3);
    samples.push_back(std::max(reported, floor));
  }
  if (!send('e')) return std::unexpected(classify_exit(what));
  if (calls >= k_min_judged_samples && 2 * gross > calls)
    return std::unexpected(violation(std::to_string(gross) + " of " + std::to_string(calls) +
                                     " samples read far less than the workbench saw them take (e.g. " + us(gross_reported) +
                                     " reported for " + us(gross_window) + "): the runner's figures were forged" +
                                     k_launcher_timed_here));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  m_busy_ms += ms;
  m_busy_by_kind["timing"] += ms;
  pollfd p{m_done_r, POLLIN, 0};
  if (::poll(&p, 1, 0) > 0 && (p.revents & POLLIN))
    return std::unexpected(violation(std::string("more messages on the runner's done pipe than samples: the candidate wrote to it") + k_launcher_timed_here));
  if (copies.download)
    if (auto r = request({{"op", "fetch"}}, timeout_ms, what); !r) return std::unexpected(r.error());
  return samples;
}

}  // namespace kwb::eval
