// kwb-load --mode specs: C connections call GET /v1/specs as fast as they can for T seconds while
// S Server-Sent Event streams are held open on a candidate that stays in flight.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "client/api_client.hpp"
#include "client/follow.hpp"
#include "load.hpp"
#include "stream_holder.hpp"

namespace kwb::load {

namespace {

// A correct vector_add whose calls on the five smallest test workloads (n < 128; 6 calls each)
// sleep, so the candidate stays in validation (holding its event streams open) without using a
// core. It holds at least 30 x SLEEP_MS (longer when drawn test shapes have n < 128 too); each call
// stays under the runner's 10 s command limit.
constexpr const char* k_holder_source = R"(// kwb-load stream holder
#include <chrono>
#include <cstdint>
#include <thread>
extern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) {
  if (n < 128) std::this_thread::sleep_for(std::chrono::milliseconds(SLEEP_MS));
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
)";

struct Hammer {
  std::vector<double> ms;
  long errors = 0;
  size_t bytes = 0;
};

void hammer(const Options& opt, Clock::time_point until, Hammer& h) {
  httplib::Client cli(opt.endpoint.url);
  cli.set_keep_alive(true);
  cli.set_tcp_nodelay(true);
  cli.set_read_timeout(30, 0);
  if (!opt.endpoint.token.empty()) cli.set_bearer_token_auth(opt.endpoint.token);
  h.ms.reserve(200000);
  while (true) {
    auto t = Clock::now();
    if (t >= until) break;
    auto r = cli.Get("/v1/specs");
    auto e = Clock::now();
    if (!r || r->status != 200) {
      ++h.errors;
      continue;
    }
    h.bytes = r->body.size();
    h.ms.push_back(ms_between(t, e));
  }
}

}  // namespace

int run_specs_load(const Options& opt) {
  client::ApiClient api(opt.endpoint, 30);
  std::string holder = opt.stream_candidate;
  bool submitted_holder = false;
  if (holder.empty() && opt.streams > 0) {
    int sleep_ms = std::clamp(int(std::ceil((opt.duration_s + 20) * 1000 / 30)), 100, 8000);
    std::string src = k_holder_source;
    src.replace(src.find("SLEEP_MS"), 8, std::to_string(sleep_ms));
    auto r = api.post("/v1/candidates", {{"op", "vector_add"}, {"source", src}, {"source_name", "holder.cpp"},
                                         {"note", "kwb-load stream holder"}});
    if (!r) return std::fprintf(stderr, "kwb-load: submitting the stream holder: %s\n", r.error().what().c_str()), 2;
    holder = r->body.value("id", std::string());
    submitted_holder = true;
  }
  std::string holder_state = "-";
  if (!holder.empty()) {
    auto r = api.get("/v1/candidates/" + holder);
    if (!r) return std::fprintf(stderr, "kwb-load: %s\n", r.error().what().c_str()), 2;
    holder_state = r->body.value("state", std::string());
  }

  StreamHolder streams(opt.endpoint.url, opt.endpoint.token, "/v1/candidates/" + holder + "/events", opt.streams);
  streams.start();
  bool all_open = streams.wait_established(15);
  if (!all_open) std::fprintf(stderr, "kwb-load: not every event stream opened within 15 s; going on\n");

  auto t0 = Clock::now();
  auto until = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration_s));
  std::vector<Hammer> hs(size_t(opt.connections));
  std::vector<std::thread> threads;
  for (auto& h : hs) threads.emplace_back([&opt, until, &h] { hammer(opt, until, h); });
  for (auto& t : threads) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  auto counts = streams.stop();

  std::string holder_after = "-";
  if (!holder.empty())
    if (auto r = api.get("/v1/candidates/" + holder); r) holder_after = r->body.value("state", std::string());
  if (submitted_holder) api.post("/v1/candidates/" + holder + "/cancel", nlohmann::json::object());

  std::vector<double> all;
  long errors = 0;
  size_t bytes = 0;
  for (const auto& h : hs) {
    all.insert(all.end(), h.ms.begin(), h.ms.end());
    errors += h.errors;
    bytes = std::max(bytes, h.bytes);
  }
  auto d = distribution(all);
  double rps = elapsed > 0 ? double(d.n) / elapsed : 0;
  nlohmann::json j = {{"mode", "specs"}, {"server", opt.endpoint.url}, {"connections", opt.connections},
                      {"duration_s", elapsed}, {"requests", d.n}, {"errors", errors}, {"requests_per_s", rps},
                      {"response_bytes", bytes}, {"latency_ms", to_json(d)},
                      {"streams", {{"candidate", holder}, {"candidate_state_before", holder_state},
                                   {"candidate_state_after", holder_after}, {"requested", counts.requested},
                                   {"established", counts.established}, {"open_at_end", counts.open_at_end},
                                   {"reopened", counts.reopened}, {"failed", counts.failed},
                                   {"heartbeats", counts.heartbeats}, {"events", counts.events}}}};
  std::printf("%s\n", j.dump(2).c_str());
  std::string t = fmt::format("kwb-load specs: {} connections x {:.1f} s on GET /v1/specs ({} bytes) against {}\n",
                              opt.connections, elapsed, bytes, opt.endpoint.url);
  t += fmt::format("  event streams       {} requested on {} ({} -> {}), {} established, {} open at end, "
                   "{} reopened, {} failed, {} heartbeats, {} events\n",
                   counts.requested, holder.empty() ? "-" : holder, holder_state, holder_after, counts.established,
                   counts.open_at_end, counts.reopened, counts.failed, counts.heartbeats, counts.events);
  t += fmt::format("  requests            {} ok, {} errors, {:.0f} requests/s\n", d.n, errors, rps);
  t += latency_header() + latency_row("GET /v1/specs", d);
  std::fputs(t.c_str(), stderr);
  return errors == 0 && counts.open_at_end == opt.streams ? 0 : 1;
}

}  // namespace kwb::load
