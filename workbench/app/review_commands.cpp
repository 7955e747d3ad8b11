// kwb promote | reject | diff | leaderboard | review | library: the review surface of a running daemon
// (POST /v1/candidates/{id}/promote|reject, GET .../diff, /v1/leaderboard/{op}, /v1/review,
// /v1/library[/{op}]).
#include <cstdio>

#include <fmt/format.h>
#include <iostream>

#include "app/commands.hpp"
#include "app/sample_plot.hpp"
#include "client/api_client.hpp"
#include "core/resource_diff.hpp"

namespace kwb::app {

namespace {

struct ReviewArgs {
  std::string id, op, reason, server, token;
  int limit = 20;
  bool json = false;
};

std::string str(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string("-");
}
std::string ratio(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fx", j[key].get<double>());
  return buf;
}

// " [bench subset: n1M]" for a candidate timed on a subset of the bench workloads.
std::string subset_mark(const nlohmann::json& c) {
  if (!c.value("bench_subset", false)) return "";
  std::string names;
  for (const auto& b : c.value("bench", nlohmann::json::array())) names += (names.empty() ? "" : ", ") + b.get<std::string>();
  return " [bench subset: " + names + "]";
}

// 0 with the body, 1 when the daemon refused (4xx), 2 when it could not be asked.
int call(const char* cmd, const ReviewArgs& a, bool post, const std::string& path, const nlohmann::json& body,
         nlohmann::json& out) {
  client::ApiClient api(client::resolve_endpoint(a.server, a.token));
  auto reply = post ? api.post(path, body) : api.get(path);
  if (!reply) {
    std::fprintf(stderr, "kwb %s: %s\n", cmd, reply.error().what().c_str());
    return reply.error().status >= 400 && reply.error().status < 500 ? 1 : 2;
  }
  out = reply->body;
  if (a.json) std::cout << out.dump(2) << "\n";
  return 0;
}

int run_promote(const ReviewArgs& a) {
  nlohmann::json out;
  if (int rc = call("promote", a, true, "/v1/candidates/" + a.id + "/promote", nlohmann::json::object(), out)) return rc;
  if (!a.json)
    std::printf("promoted %s: library commit %s adds %s (%s against the incumbent)\n", a.id.c_str(),
                str(out, "commit").c_str(), str(out, "kernel").c_str(), ratio(out, "speedup").c_str());
  return 0;
}

int run_reject(const ReviewArgs& a) {
  nlohmann::json out;
  if (int rc = call("reject", a, true, "/v1/candidates/" + a.id + "/reject", {{"reason", a.reason}}, out)) return rc;
  if (!a.json) std::printf("rejected %s: %s\n", a.id.c_str(), a.reason.c_str());
  return 0;
}

// Each timed workload's samples and its comparison's block ratios, as text histograms
// (docs/verdict.md "Samples"); nothing where the candidate has none.
void print_distributions(const ReviewArgs& a) {
  client::ApiClient api(client::resolve_endpoint(a.server, a.token));
  auto samples = api.get("/v1/candidates/" + a.id + "/artifacts/samples");
  auto blocks = api.get("/v1/candidates/" + a.id + "/artifacts/blocks");
  for (const auto& w : samples ? samples->body.value("workloads", nlohmann::json::array()) : nlohmann::json::array()) {
    auto v = w.value("samples_ns", std::vector<double>{});
    std::printf("\n%s: %zu samples (us)\n%s", str(w, "name").c_str(), v.size(), text_histogram(v, 10, 40, 1e3).c_str());
  }
  for (const auto& w : blocks ? blocks->body.value("workloads", nlohmann::json::array()) : nlohmann::json::array()) {
    auto r = w.value("ratios", std::vector<double>{});
    std::printf("\n%s: %zu block ratios (incumbent / candidate)\n%s", str(w, "name").c_str(), r.size(),
                text_histogram(r, 10, 40).c_str());
  }
}

int run_diff(const ReviewArgs& a) {
  nlohmann::json out;
  if (int rc = call("diff", a, false, "/v1/candidates/" + a.id + "/diff", {}, out)) return rc;
  if (a.json) return 0;
  std::string inc = out.contains("incumbent") && out["incumbent"].is_object() ? str(out["incumbent"], "kernel") : "none";
  std::printf("%s (%s/%s/%s) against the incumbent %s: %s geomean, %s\n\n", a.id.c_str(), str(out, "op").c_str(),
              str(out, "variant").c_str(), str(out, "backend").c_str(), inc.c_str(),
              ratio(out, "geomean_vs_incumbent").c_str(),
              out.contains("beats_incumbent") && out["beats_incumbent"].is_boolean()
                  ? (out["beats_incumbent"].get<bool>() ? "beats it" : "does not beat it")
                  : "not compared");
  std::printf("author: %s   source: %.12s%s\n", str(out, "author").c_str(), str(out, "source_sha256").c_str(),
              subset_mark(out).c_str());
  std::string same;
  for (const auto& o : out.value("same_source", nlohmann::json::array())) same += (same.empty() ? "" : ", ") + str(o, "id");
  if (!same.empty()) std::printf("identical source: %s\n", same.c_str());
  if (out.contains("decision") && out["decision"].is_string()) std::printf("decision: %s\n", str(out, "decision").c_str());
  if (out.contains("machine") && out["machine"].is_object() && out["machine"].value("busy", false))
    std::printf("warning: busy machine during timing: %s\n", str(out["machine"], "detail").c_str());
  std::printf("\n%-24s %14s %8s %14s %10s %-20s %-9s %7s %8s\n", "workload", "candidate ns", "±", "incumbent ns",
              "speed-up", "interval", "label", "blocks", "samples");
  for (const auto& w : out.value("workloads", nlohmann::json::array())) {
    auto ns = [&](const char* k) {
      return w.contains(k) && w[k].is_number() ? std::to_string(int64_t(w[k].get<double>())) : std::string("-");
    };
    std::string interval = "-", label = "-", blocks = "-", samples = ns("samples");
    if (w.contains("comparison") && w["comparison"].is_object()) {
      const auto& c = w["comparison"];
      interval = fmt::format("[{:.3f}, {:.3f}]", c.value("low", 0.0), c.value("high", 0.0));
      label = c.value("label", "-");
      blocks = std::to_string(c.value("blocks", 0));
      samples = std::to_string(c.value("samples", 0));
    }
    std::string pm = w.contains("stderr_pct") && w["stderr_pct"].is_number()
                         ? fmt::format("{:.2f}%", w["stderr_pct"].get<double>())
                         : std::string("-");
    std::printf("%-24s %14s %8s %14s %10s %-20s %-9s %7s %8s\n", str(w, "workload").c_str(), ns("candidate_ns").c_str(),
                pm.c_str(), ns("incumbent_ns").c_str(), ratio(w, "vs_incumbent").c_str(), interval.c_str(), label.c_str(),
                blocks.c_str(), samples.c_str());
  }
  // The resources beside the incumbent's, per workload and kernel, with the losses (docs/verdict.md "Resources").
  if (out.contains("resources") && out["resources"].is_object())
    if (auto table = core::resource_table(core::resource_diff_from_json(out["resources"])); !table.empty())
      std::printf("\n%s", table.c_str());
  print_distributions(a);
  std::printf("\n%s", str(out, "diff").c_str());
  return 0;
}

// One candidate's per-workload evidence: the comparison with the incumbent (label, ratio, its
// interval, blocks, samples per side) where there was one, else its own median ± and samples.
std::string evidence_text(const nlohmann::json& c) {
  std::string out;
  for (const auto& w : c.value("workloads", nlohmann::json::array())) {
    std::string one;
    if (w.contains("comparison") && w["comparison"].is_object()) {
      const auto& e = w["comparison"];
      one = fmt::format("{} {} {:.3f}x [{:.3f}, {:.3f}] {}b n={}", str(w, "workload"), str(e, "label"),
                        e.value("ratio", 0.0), e.value("low", 0.0), e.value("high", 0.0), e.value("blocks", 0),
                        e.value("samples", 0));
    } else {
      one = fmt::format("{} {:.0f} ns ±{:.2f}% n={}", str(w, "workload"), w.value("median_ns", 0.0),
                        w.value("stderr_pct", 0.0), w.value("samples", 0));
    }
    out += (out.empty() ? "" : "; ") + one;
  }
  return out.empty() ? "-" : out;
}

// Candidate lists (leaderboard, review): one line per candidate, the evidence on the next.
void print_candidates(const nlohmann::json& list, bool with_op) {
  std::printf("%-18s  %s%-8s  %-13s  %10s  %-5s  %-9s  %-16s  %s\n", "id", with_op ? "op            " : "", "variant",
              "backend", "vs incumb.", "beats", "decision", "author", "note");
  for (const auto& c : list) {
    std::string beats = c.contains("beats_incumbent") && c["beats_incumbent"].is_boolean()
                            ? (c["beats_incumbent"].get<bool>() ? "yes" : "no")
                            : "-";
    std::string op = with_op ? fmt::format("{:<14}", str(c, "op")) : "";
    std::printf("%-18s  %s%-8s  %-13s  %10s  %-5s  %-9s  %-16s  %s\n", str(c, "id").c_str(), op.c_str(),
                str(c, "variant").c_str(), str(c, "backend").c_str(), ratio(c, "geomean_vs_incumbent").c_str(),
                beats.c_str(), str(c, "decision").c_str(), str(c, "author").c_str(), str(c, "note").c_str());
    std::string marks = subset_mark(c);
    if (c.contains("same_source_as") && c["same_source_as"].is_string())
      marks += " (same source as " + c["same_source_as"].get<std::string>() + ")";
    std::printf("    %s%s\n", evidence_text(c).c_str(), marks.c_str());
  }
}

int run_leaderboard(const ReviewArgs& a) {
  nlohmann::json out;
  if (int rc = call("leaderboard", a, false, "/v1/leaderboard/" + a.op + "?limit=" + std::to_string(a.limit), {}, out))
    return rc;
  if (a.json) return 0;
  std::printf("%s: %zu candidates, %d distinct sources; per workload: label ratio [interval] blocks n=samples per side "
              "(or median ±stderr n=samples)\n\n",
              a.op.c_str(), out.value("candidates", nlohmann::json::array()).size(), out.value("distinct_sources", 0));
  print_candidates(out.value("candidates", nlohmann::json::array()), false);
  return 0;
}

int run_review(const ReviewArgs& a) {
  nlohmann::json out;
  std::string path = "/v1/review?limit=" + std::to_string(a.limit) + (a.op.empty() ? "" : "&op=" + a.op);
  if (int rc = call("review", a, false, path, {}, out)) return rc;
  if (a.json) return 0;
  const auto& list = out.value("candidates", nlohmann::json::array());
  std::printf("%d winner%s pending review%s\n\n", out.value("pending", 0), out.value("pending", 0) == 1 ? "" : "s",
              list.size() < size_t(out.value("pending", 0)) ? fmt::format(" (showing {})", list.size()).c_str() : "");
  print_candidates(list, true);
  if (!list.empty()) std::printf("\nnext: kwb diff ID, then kwb promote ID or kwb reject ID --reason WHY\n");
  return 0;
}

int run_library(const ReviewArgs& a) {
  nlohmann::json out;
  if (int rc = call("library", a, false, a.op.empty() ? "/v1/library" : "/v1/library/" + a.op, {}, out)) return rc;
  if (a.json) return 0;
  std::printf("library %s at %s\n\n", str(out, "path").c_str(), str(out, "commit").c_str());
  std::printf("%-14s %-6s %-8s %-12s %s\n", "op", "variant", "backend", "device", "kernel");
  for (const auto& e : out.value("entries", nlohmann::json::array()))
    std::printf("%-14s %-6s %-8s %-12s %s\n", str(e, "op").c_str(), str(e, "variant").c_str(),
                str(e, "backend").c_str(), str(e, "device_class").c_str(), str(e, "kernel").c_str());
  if (out.contains("history")) {
    std::printf("\nhistory:\n");
    for (const auto& c : out["history"]) std::printf("  %.12s  %s\n", str(c, "commit").c_str(), str(c, "summary").c_str());
  }
  return 0;
}

CLI::App* client_command(CLI::App& app, const char* name, const char* help, std::shared_ptr<ReviewArgs> a) {
  auto* cmd = app.add_subcommand(name, help);
  cmd->add_flag("--json", a->json, "Print the daemon's JSON reply");
  cmd->add_option("--server", a->server, "Daemon URL [env KWB_SERVER, default http://127.0.0.1:8470]");
  cmd->add_option("--token", a->token, "Bearer token [env KWB_TOKEN]; promote and reject need a reviewer token");
  return cmd;
}

}  // namespace

void add_review_commands(CLI::App& app, int& code) {
  auto a = std::make_shared<ReviewArgs>();
  auto* promote = client_command(app, "promote", "Make an accepted, winning candidate the library's incumbent", a);
  promote->add_option("id", a->id, "Candidate id")->required();
  promote->callback([a, &code] { code = run_promote(*a); });
  auto* reject = client_command(app, "reject", "Reject a candidate with a reason", a);
  reject->add_option("id", a->id, "Candidate id")->required();
  reject->add_option("--reason", a->reason, "Why")->required();
  reject->callback([a, &code] { code = run_reject(*a); });
  auto* diff = client_command(app, "diff", "A candidate's diff against the incumbent, with the per-workload table", a);
  diff->add_option("id", a->id, "Candidate id")->required();
  diff->callback([a, &code] { code = run_diff(*a); });
  auto* board = client_command(app, "leaderboard", "Accepted candidates of an op, fastest against the incumbent first", a);
  board->add_option("op", a->op, "Op")->required();
  board->add_option("--limit", a->limit, "At most this many")->default_val(20);
  board->callback([a, &code] { code = run_leaderboard(*a); });
  auto r = std::make_shared<ReviewArgs>();  // its own --limit default
  auto* review = client_command(app, "review",
                                "Winners waiting for a review decision, across ops, oldest first (needs a reviewer token)", r);
  review->add_option("--op", r->op, "Only this op");
  review->add_option("--limit", r->limit, "At most this many")->default_val(50);
  review->callback([r, &code] { code = run_review(*r); });
  auto* lib = client_command(app, "library", "The library's incumbents (and one op's history)", a);
  lib->add_option("op", a->op, "Op (default: every op, no history)");
  lib->callback([a, lib, &code] {
    if (lib->get_subcommands().empty()) code = run_library(*a);  // not `kwb library report`
  });
}

}  // namespace kwb::app
