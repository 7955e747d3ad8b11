#pragma once
// kwb-load: drives a running daemon and reports what it measured (a JSON summary on stdout, a
// table on stderr). Modes: `submit` (candidates end to end) and `specs` (GET /v1/specs under
// open event streams).
#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/endpoint.hpp"

namespace kwb::load {

struct Options {
  client::Endpoint endpoint;
  std::string mode = "submit";
  // submit
  int clients = 50;
  int candidates = 500;
  int cached_percent = 50;  // share of resubmissions of the unchanged source (compile-cache hits)
  int wait_s = 60;          // ?wait= of each long-poll
  std::string op = "vector_add";
  std::string source;       // candidate file (default: the shipped vector_add kernel)
  bool check_events = true; // count verdict events per candidate at the end
  // specs
  int connections = 8;
  double duration_s = 10;
  int streams = 50;
  std::string stream_candidate;  // hold streams on this candidate (default: submit a slow one)
};

using Clock = std::chrono::steady_clock;

inline double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Order statistics of a sample (nearest rank).
struct Distribution {
  size_t n = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};
Distribution distribution(std::vector<double> v);
nlohmann::json to_json(const Distribution& d);
// "  label        n     p50     p90     p99     max" rows, milliseconds.
std::string latency_header();
std::string latency_row(const std::string& label, const Distribution& d);

int run_submit_load(const Options& opt);
int run_specs_load(const Options& opt);

}  // namespace kwb::load
