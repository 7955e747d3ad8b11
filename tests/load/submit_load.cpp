// kwb-load --mode submit: N clients submit M candidates (a mix of unchanged resubmissions and
// sources varied by a comment), each client long-polling its candidate to the verdict before it
// submits the next; then cross-checks with the daemon that none was lost or duplicated.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "client/api_client.hpp"
#include "client/follow.hpp"
#include "load.hpp"
#include "util/fs.hpp"

namespace kwb::load {

namespace {

struct Outcome {
  std::string id, state, status, compile_cache, error;
  bool cached = false, replayed = false;
  int retries_429 = 0, retries_transport = 0, attempts = 0;
  double submit_ms = 0, verdict_ms = 0, wall_ms = 0;
  std::map<std::string, double> stage_ms;  // the verdict's summary.stage_ms
  std::vector<std::string> transport_errors;  // "submit: ..." / "wait: ..." for each retry
  Clock::time_point start, end;
};

struct Run {
  const Options& opt;
  std::string tag, source, source_name;
  std::vector<Outcome> out;
  std::atomic<int> next{0};
};

bool is_cached(int i, int percent) { return (int64_t(i + 1) * percent) / 100 > (int64_t(i) * percent) / 100; }

void submit_one(Run& run, client::ApiClient& api, int i) {
  Outcome& o = run.out[size_t(i)];
  o.cached = is_cached(i, run.opt.cached_percent);
  std::string source = o.cached ? run.source : run.source + fmt::format("\n// kwb-load {} candidate {}\n", run.tag, i);
  nlohmann::json body = {{"op", run.opt.op}, {"source", source}, {"source_name", run.source_name},
                         {"note", "kwb-load " + run.tag}};
  // The key makes a retry after a lost reply safe: the same key returns the same candidate.
  client::HeaderList headers = {{"Idempotency-Key", fmt::format("kwb-load-{}-{}", run.tag, i)}};
  o.start = Clock::now();
  while (true) {
    auto t = Clock::now();
    auto r = api.post("/v1/candidates", body, headers);
    if (r) {
      o.submit_ms = ms_between(t, Clock::now());
      o.id = r->body.value("id", std::string());
      o.replayed = r->status == 200;
      break;
    }
    if (r.error().status == 429) {
      ++o.retries_429;
      std::this_thread::sleep_for(std::chrono::seconds(std::max(1, r.error().retry_after_s)));
    } else if (r.error().status == 0 && o.retries_transport < 5) {
      ++o.retries_transport;
      o.transport_errors.push_back("submit: " + r.error().message.substr(0, r.error().message.find(';')));
    } else {
      o.error = "submit: " + r.error().what();
      return;
    }
  }
  while (true) {
    auto r = api.get("/v1/candidates/" + o.id + "?wait=" + std::to_string(run.opt.wait_s));
    if (!r) {
      if (r.error().status == 0 && ++o.retries_transport <= 10) {
        o.transport_errors.push_back("wait: " + r.error().message.substr(0, r.error().message.find(';')));
        continue;
      }
      o.error = "wait: " + r.error().what();
      return;
    }
    const auto& c = r->body;
    o.state = c.value("state", std::string());
    if (!client::terminal_state(o.state)) continue;
    o.end = Clock::now();
    o.verdict_ms = ms_between(o.start, o.end);
    o.attempts = c.value("attempts", 0);
    if (c.contains("status") && c["status"].is_string()) o.status = c["status"];
    if (c.contains("verdict") && c["verdict"].is_object()) {
      const auto& s = c["verdict"]["summary"];
      if (s.contains("compile_cache") && s["compile_cache"].is_string()) o.compile_cache = s["compile_cache"];
      if (s.contains("wall_ms") && s["wall_ms"].is_number()) o.wall_ms = s["wall_ms"];
      if (s.contains("stage_ms") && s["stage_ms"].is_object())
        for (const auto& [k, v] : s["stage_ms"].items())
          if (v.is_number()) o.stage_ms[k] = v.get<double>();
    }
    return;
  }
}

void client_thread(Run& run) {
  client::ApiClient api(run.opt.endpoint, run.opt.wait_s + 30);
  for (int i; (i = run.next++) < run.opt.candidates;) submit_one(run, api, i);
}

// Every candidate of this run the daemon lists (filtered by op, matched by note).
std::map<std::string, nlohmann::json> listed(client::ApiClient& api, const Run& run, std::string* error) {
  std::map<std::string, nlohmann::json> by_id;
  std::string filter = "&op=" + client::url_encode(run.opt.op);
  std::string path = "/v1/candidates?limit=500" + filter;
  while (!path.empty()) {
    auto r = api.get(path);
    if (!r) {
      *error = r.error().what();
      break;
    }
    for (const auto& c : r->body["items"])
      if (c.value("note", std::string()) == "kwb-load " + run.tag) {
        if (by_id.contains(c["id"])) *error = "the list shows " + c["id"].get<std::string>() + " twice";
        by_id[c["id"]] = c;
      }
    path = r->body["next"].is_string() ? r->body["next"].get<std::string>() + filter : "";
  }
  return by_id;
}

}  // namespace

int run_submit_load(const Options& opt) {
  auto src = util::read_file(opt.source);
  if (!src) return std::fprintf(stderr, "kwb-load: %s\n", src.error().what().c_str()), 2;
  std::random_device rd;
  Run run{opt, fmt::format("{:08x}", rd()), *src, std::filesystem::path(opt.source).filename().string(), {}};
  run.out.resize(size_t(opt.candidates));

  auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < opt.clients; ++c) threads.emplace_back([&run] { client_thread(run); });
  for (auto& t : threads) t.join();
  auto t1 = Clock::now();

  // Cross-checks: distinct ids, terminal states, the daemon's own list, one verdict event each.
  client::ApiClient api(opt.endpoint, 60);
  std::set<std::string> ids;
  std::map<std::string, int> statuses, caches, transport_errors;
  std::vector<double> submit_ms, verdict_ms, eval_ms;
  std::map<std::string, std::vector<double>> stage_ms;
  int errors = 0, no_verdict = 0, replays = 0, r429 = 0, rtransport = 0, multi_attempt = 0;
  Clock::time_point first = t1, last = t0;
  for (const auto& o : run.out) {
    if (!o.error.empty()) {
      if (++errors <= 5) std::fprintf(stderr, "kwb-load: %s\n", o.error.c_str());
      continue;
    }
    ids.insert(o.id);
    replays += o.replayed;
    r429 += o.retries_429;
    rtransport += o.retries_transport;
    for (const auto& e : o.transport_errors) ++transport_errors[e];
    multi_attempt += o.attempts > 1;
    if (o.state != "done" || o.status.empty()) ++no_verdict;
    ++statuses[o.status.empty() ? o.state : o.status];
    ++caches[o.compile_cache.empty() ? "-" : o.compile_cache];
    submit_ms.push_back(o.submit_ms);
    verdict_ms.push_back(o.verdict_ms);
    eval_ms.push_back(o.wall_ms);
    for (const auto& [k, v] : o.stage_ms) stage_ms[k].push_back(v);
    first = std::min(first, o.start);
    last = std::max(last, o.end);
  }
  int answered = opt.candidates - errors;
  int duplicated = answered - int(ids.size());
  std::string list_error;
  auto by_id = listed(api, run, &list_error);
  int listed_ours = 0, listed_done = 0;
  for (const auto& [id, c] : by_id) {
    listed_ours += ids.contains(id);
    listed_done += c.value("state", std::string()) == "done";
  }
  int verdict_events_one = 0, verdict_events_bad = 0;
  if (opt.check_events)
    for (const auto& id : ids) {
      auto r = api.get("/v1/candidates/" + id + "/events?wait=0");
      int n = 0;
      if (r)
        for (const auto& e : r->body["events"]) n += e.value("kind", std::string()) == "verdict";
      (n == 1 ? verdict_events_one : verdict_events_bad)++;
    }
  int lost = opt.candidates - answered + no_verdict + int(ids.size()) - listed_ours;
  double span_s = std::chrono::duration<double>(last - first).count();
  double throughput = span_s > 0 ? answered / span_s : 0;
  auto ds = distribution(submit_ms), dv = distribution(verdict_ms), de = distribution(eval_ms);
  nlohmann::json stages = nlohmann::json::object();
  std::string stage_rows;
  for (const auto& [k, v] : stage_ms) {
    auto d = distribution(v);
    stages[k] = to_json(d);
    stage_rows += latency_row("  stage " + k, d);
  }

  nlohmann::json j = {
      {"mode", "submit"}, {"server", opt.endpoint.url}, {"tag", run.tag}, {"op", opt.op}, {"source", opt.source},
      {"clients", opt.clients}, {"candidates", opt.candidates}, {"cached_percent", opt.cached_percent},
      {"submitted", answered}, {"errors", errors}, {"distinct_ids", ids.size()}, {"duplicated", duplicated},
      {"without_verdict", no_verdict}, {"lost", lost}, {"listed", by_id.size()}, {"listed_done", listed_done},
      {"list_error", list_error}, {"verdict_events_exactly_one", verdict_events_one},
      {"verdict_events_not_one", verdict_events_bad}, {"events_checked", opt.check_events},
      {"attempts_over_one", multi_attempt}, {"idempotent_replays", replays}, {"retries_429", r429},
      {"retries_transport", rtransport}, {"transport_errors", transport_errors},
      {"statuses", statuses}, {"compile_cache", caches},
      {"wall_s", std::chrono::duration<double>(t1 - t0).count()}, {"span_s", span_s},
      {"throughput_per_s", throughput}, {"submit_ms", to_json(ds)}, {"submit_to_verdict_ms", to_json(dv)},
      {"evaluation_wall_ms", to_json(de)}, {"stage_ms", stages}};
  std::printf("%s\n", j.dump(2).c_str());

  std::string t = fmt::format("kwb-load submit: {} candidates ({}% cached) of {} from {} clients against {}\n",
                              opt.candidates, opt.cached_percent, opt.op, opt.clients, opt.endpoint.url);
  t += fmt::format("  submitted           {:>6}   errors {}, 429 retries {}, transport retries {}, replays {}\n",
                   answered, errors, r429, rtransport, replays);
  for (const auto& [e, n] : transport_errors) t += fmt::format("    retried after     {:>6} x {}\n", n, e);
  t += fmt::format("  distinct ids        {:>6}   duplicated {}\n", ids.size(), duplicated);
  t += fmt::format("  reached a verdict   {:>6}   lost {}\n", answered - no_verdict, lost);
  t += fmt::format("  listed by daemon    {:>6}   done {}{}\n", by_id.size(), listed_done,
                   list_error.empty() ? "" : "  (" + list_error + ")");
  if (opt.check_events)
    t += fmt::format("  one verdict event   {:>6}   not exactly one {}; attempts > 1: {}\n", verdict_events_one,
                     verdict_events_bad, multi_attempt);
  std::string st, ca;
  for (const auto& [k, n] : statuses) st += fmt::format("{} {}  ", k, n);
  for (const auto& [k, n] : caches) ca += fmt::format("{} {}  ", k, n);
  t += "  statuses            " + st + "\n  compile cache       " + ca + "\n";
  t += fmt::format("  span {:.1f} s, throughput {:.2f} candidates/s\n", span_s, throughput);
  t += latency_header() + latency_row("submit", ds) + latency_row("submit->verdict", dv) +
       latency_row("evaluation (wall)", de) + stage_rows;
  std::fputs(t.c_str(), stderr);
  return errors == 0 && duplicated == 0 && lost == 0 && verdict_events_bad == 0 ? 0 : 1;
}

}  // namespace kwb::load
