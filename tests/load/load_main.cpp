// kwb-load: load generator for `kwb serve` (see docs/benchmarks/daemon.md for the commands).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "load.hpp"

namespace kwb::load {

Distribution distribution(std::vector<double> v) {
  Distribution d;
  d.n = v.size();
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  auto rank = [&](double q) { return v[std::min(v.size() - 1, size_t(std::ceil(q * double(v.size()))) - 1)]; };
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / double(v.size());
  d.p50 = rank(0.50);
  d.p90 = rank(0.90);
  d.p99 = rank(0.99);
  d.max = v.back();
  return d;
}

nlohmann::json to_json(const Distribution& d) {
  return {{"n", d.n}, {"mean_ms", d.mean}, {"p50_ms", d.p50}, {"p90_ms", d.p90}, {"p99_ms", d.p99}, {"max_ms", d.max}};
}

std::string latency_header() {
  return fmt::format("  {:<20} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "latency (ms)", "n", "mean", "p50", "p90",
                     "p99", "max");
}

std::string latency_row(const std::string& label, const Distribution& d) {
  return fmt::format("  {:<20} {:>6} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f}\n", label, d.n, d.mean, d.p50,
                     d.p90, d.p99, d.max);
}

}  // namespace kwb::load

int main(int argc, char** argv) {
  using namespace kwb;
  load::Options o;
  std::string server, token;
  CLI::App app{"kwb-load: load generator for a running kwb daemon; JSON summary on stdout, table on stderr",
               "kwb-load"};
  app.add_option("--server", server, "Daemon URL [env KWB_SERVER, default http://127.0.0.1:8470]");
  app.add_option("--token", token, "Bearer token (agent role) [env KWB_TOKEN]");
  app.add_option("--mode", o.mode, "submit | specs")->check(CLI::IsMember({"submit", "specs"}));
  app.add_option("--clients", o.clients, "submit: concurrent clients (threads, one keep-alive connection each)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--candidates", o.candidates, "submit: candidates in total")->check(CLI::Range(1, 1000000));
  app.add_option("--cached-percent", o.cached_percent,
                 "submit: share that resubmits the unchanged source (compile-cache hit); the rest differ by a comment")
      ->check(CLI::Range(0, 100));
  app.add_option("--wait", o.wait_s, "submit: ?wait= seconds of each long-poll")->check(CLI::Range(1, 60));
  app.add_option("--op", o.op, "submit: op of the candidates");
  app.add_option("--source", o.source, "submit: candidate source (default: kernels/vector_add/cpu/vectorized.cpp)");
  app.add_flag("!--no-event-check", o.check_events, "submit: skip counting verdict events per candidate at the end");
  app.add_option("--connections", o.connections, "specs: concurrent GET /v1/specs connections")->check(CLI::Range(1, 512));
  app.add_option("--duration", o.duration_s, "specs: seconds to run")->check(CLI::Range(0.5, 3600.0));
  app.add_option("--streams", o.streams, "specs: event streams held open meanwhile")->check(CLI::Range(0, 1000));
  app.add_option("--stream-candidate", o.stream_candidate,
                 "specs: hold the streams on this candidate (default: submit one that stays in validation)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  o.endpoint = client::resolve_endpoint(server, token);
  if (o.source.empty()) o.source = std::string(KWB_LOAD_SOURCE_DIR) + "/kernels/vector_add/cpu/vectorized.cpp";
  return o.mode == "specs" ? load::run_specs_load(o) : load::run_submit_load(o);
}
