// kwb ci promote: re-validates the pending winners (accepted, beating the incumbent, not yet
// decided) one at a time with fresh seeds, re-times the incumbent in the same run, promotes
// those that still win, and writes a JSON and a JUnit report. A winner that no longer wins (or is
// no longer correct) is recorded as rejected with the reason; one this machine could not judge
// (no device, a setup error) stays pending. Exit 0 when every pending winner was promoted, 1
// otherwise (with --no-longer-wins pass, a winner that no longer wins does not count), 2 on usage
// or setup errors. --dry-run lists the pending winners and does nothing else.
#include <cstdio>
#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "core/backend.hpp"
#include "core/filters.hpp"
#include "app/judging.hpp"
#include "app/library_support.hpp"
#include "app/spec_sources.hpp"
#include "core/verdict_parse.hpp"
#include "library/evidence.hpp"
#include "library/promotion.hpp"
#include "library/referee.hpp"
#include "store/candidate_repository.hpp"
#include "store/decision_repository.hpp"
#include "store/event_repository.hpp"
#include "store/object_store.hpp"
#include "util/fs.hpp"

namespace kwb::app {

namespace {

struct CiArgs {
  std::string policy, report_json, junit;
  std::vector<std::string> ops;
  int limit = 100;
  bool dry_run = false;
  std::string no_longer_wins = "fail";  // "fail" | "pass": whether a winner that no longer wins fails the job
};

int usage(const std::string& msg) {
  std::fprintf(stderr, "kwb ci promote: %s\n", msg.c_str());
  return 2;
}

util::Result<library::Policy> load_policy(const std::string& file, int decide_budget_ms) {
  library::Policy p;
  p.decide_budget_ms = decide_budget_ms;
  if (file.empty()) return p;
  auto text = util::read_file(file);
  if (!text) return std::unexpected(text.error());
  auto j = nlohmann::json::parse(*text, nullptr, false, true);
  if (j.is_discarded() || !j.is_object()) return util::fail(file, "expected a JSON object");
  double budget = p.decide_budget_ms, blocks = p.min_blocks;
  for (const auto& [key, value] : j.items()) {
    double* field = key == "min_gain_pct"         ? &p.min_gain_pct
                    : key == "same_margin_pct"    ? &p.same_margin_pct
                    : key == "max_regression_pct" ? &p.max_regression_pct
                    : key == "confidence"         ? &p.confidence
                    : key == "decide_budget_ms"   ? &budget
                    : key == "min_blocks"         ? &blocks
                    : key == "gpu_precision_pct"  ? &p.gpu_precision_pct
                    : key == "gpu_block_ms"       ? &p.gpu_block_ms
                    : key == "cpu_min_gain_pct"   ? &p.cpu_min_gain_pct
                    : key == "cpu_same_margin_pct" ? &p.cpu_same_margin_pct
                                                  : nullptr;
    if (!field)
      return util::fail(file + ": " + key, "unknown policy key (known: min_gain_pct, same_margin_pct, "
                                           "max_regression_pct, confidence, decide_budget_ms, min_blocks, "
                                           "gpu_precision_pct, gpu_block_ms, cpu_min_gain_pct, cpu_same_margin_pct)");
    if (!value.is_number() || value.get<double>() < 0) return util::fail(file + ": " + key, "expected a number >= 0");
    *field = value.get<double>();
  }
  if (!(p.confidence > 0.5 && p.confidence < 1)) return util::fail(file + ": confidence", "expected a number in (0.5, 1)");
  if (budget < 1) return util::fail(file + ": decide_budget_ms", "expected a number >= 1");
  if (blocks < 0) return util::fail(file + ": min_blocks", "expected a number >= 0 (0: the interval's first look)");
  p.decide_budget_ms = int(budget);
  p.min_blocks = int(blocks);
  return p;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') ? ' ' : c;
    }
  }
  return out;
}

std::string junit_report(const nlohmann::json& results, double seconds) {
  int failures = 0;
  for (const auto& r : results) failures += r["fails_job"].get<bool>();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"kwb ci promote\" tests=\"" + std::to_string(results.size()) + "\" failures=\"" +
         std::to_string(failures) + "\" time=\"" + std::to_string(seconds) + "\">\n";
  out += "  <testsuite name=\"kwb ci promote\" tests=\"" + std::to_string(results.size()) + "\" failures=\"" +
         std::to_string(failures) + "\" time=\"" + std::to_string(seconds) + "\">\n";
  for (const auto& r : results) {
    std::string cls = r["op"].get<std::string>() + "." + r["variant"].get<std::string>() + "." +
                      r["backend"].get<std::string>();
    out += "    <testcase classname=\"" + xml_escape(cls) + "\" name=\"" + xml_escape(r["id"].get<std::string>()) +
           "\" time=\"" + std::to_string(r["seconds"].get<double>()) + "\">\n";
    if (r["fails_job"].get<bool>())
      out += "      <failure type=\"" + xml_escape(r["outcome"].get<std::string>()) + "\" message=\"" +
             xml_escape(r["reason"].get<std::string>()) + "\"/>\n";
    else if (r["outcome"] != "promoted")  // a dry run, or a winner that no longer wins under --no-longer-wins pass
      out += "      <skipped message=\"" + xml_escape(r["outcome"].get<std::string>() + ": " + r["reason"].get<std::string>()) +
             "\"/>\n";
    else
      out += "      <system-out>" + xml_escape("promoted in " + r["commit"].get<std::string>()) + "</system-out>\n";
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

util::Result<void> write_ci_reports(const CiArgs& a, const nlohmann::json& report, double seconds) {
  if (!a.report_json.empty())
    if (auto w = util::write_file_atomic(a.report_json, report.dump(2) + "\n"); !w) return w;
  if (!a.junit.empty())
    if (auto w = util::write_file_atomic(a.junit, junit_report(report["candidates"], seconds)); !w) return w;
  return {};
}

// --dry-run: what a run would do, from the stored verdicts alone; nothing is evaluated, recorded
// or committed (the reports are written, with outcome would_revalidate).
int run_ci_dry_run(const CiArgs& a, const std::vector<store::CandidateRecord>& pending, const nlohmann::json& left_to_reviewer,
            library::Repository& repo, const std::string& head) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& rec : pending) {
    auto v = core::verdict_from_json(rec.verdict);
    nlohmann::json r = {{"id", rec.id}, {"op", rec.op}, {"variant", rec.variant}, {"backend", rec.backend},
                        {"outcome", "would_revalidate"}, {"commit", ""}, {"seconds", 0.0}, {"fails_job", false},
                        {"geomean_vs_incumbent", nullptr}, {"workloads", nlohmann::json::array()}};
    std::string recorded = "no recorded ratio";
    if (v) {
      r["variant"] = v->variant.empty() ? rec.variant : v->variant;
      r["workloads"] = library::workload_evidence(*v);
      if (v->summary.geomean_vs_incumbent) {
        r["geomean_vs_incumbent"] = *v->summary.geomean_vs_incumbent;
        recorded = fmt::format("recorded {:.3f}x geomean", *v->summary.geomean_vs_incumbent);
      }
    }
    r["reason"] = "would re-validate it with fresh seeds on every bench workload, re-time the incumbent beside it "
                  "and promote it if it still wins (" + recorded + ")";
    std::printf("would     %s %s/%s/%s: %s\n", rec.id.c_str(), rec.op.c_str(), r["variant"].get<std::string>().c_str(),
                rec.backend.c_str(), r["reason"].get<std::string>().c_str());
    results.push_back(r);
  }
  for (const auto& id : left_to_reviewer)
    std::printf("skip      %s: a cuda-launcher winner, left to a reviewer (kwb review)\n", id.get<std::string>().c_str());
  nlohmann::json report = {{"schema", "kwb.ci-promote.v1"},
                           {"library", repo.path().string()},
                           {"started_commit", head},
                           {"final_commit", head},
                           {"dry_run", true},
                           {"summary", {{"pending", pending.size()}, {"promoted", 0}, {"failed", 0}}},
                           {"left_to_reviewer", left_to_reviewer},
                           {"seconds", 0.0},
                           {"candidates", results}};
  if (auto w = write_ci_reports(a, report, 0.0); !w) return usage(w.error().what());
  std::printf("kwb ci promote --dry-run: %zu pending winner%s would be re-validated; nothing was evaluated, recorded or "
              "committed\n", pending.size(), pending.size() == 1 ? "" : "s");
  return 0;
}

int run_ci_promote(const CiArgs& a, const util::Settings& settings) {
  auto t0 = std::chrono::steady_clock::now();
  auto policy = load_policy(a.policy, int(settings.get_int("decide-budget-ms")));
  if (!policy) return usage(policy.error().what());
  std::filesystem::path workspace = settings.get("workspace");
  auto db = store::Database::open(workspace / "kwb.db");
  if (!db) return usage(db.error().what());
  auto catalog = load_catalog(settings);
  if (!catalog) return usage(catalog.error().what());
  for (const auto& op : a.ops)
    if (auto why = core::refuse_unknown("op", op, catalog->ops())) return usage("--op: " + *why);
  auto repo = library::Repository::open_or_seed(library_path(settings), settings.get("kernels-dir"));
  if (!repo) return usage("library: " + repo.error().what());
  store::ObjectStore objects(workspace / "objects");
  auto started_commit = (*repo)->head();

  // Pending winners: accepted, beating the incumbent they were compared with, undecided; oldest first.
  store::CandidateRepository candidates(*db);
  store::DecisionRepository decisions(*db);
  store::EventRepository events(*db);
  auto recs = candidates.accepted_undecided(1 << 20);
  if (!recs) return usage(recs.error().what());
  std::vector<store::CandidateRecord> pending;
  nlohmann::json left_to_reviewer = nlohmann::json::array();
  for (const auto& rec : *recs) {
    auto v = core::verdict_from_json(rec.verdict);
    if (!v || !v->summary.beats_incumbent.value_or(false)) continue;
    if (!a.ops.empty() && std::find(a.ops.begin(), a.ops.end(), rec.op) == a.ops.end()) continue;
    if (core::reviewer_only(rec.backend)) {  // host code of its own: left for a reviewer (docs/library.md)
      left_to_reviewer.push_back(rec.id);
      continue;
    }
    if (int(pending.size()) >= a.limit) continue;
    pending.push_back(rec);
  }
  if (a.dry_run) return run_ci_dry_run(a, pending, left_to_reviewer, **repo, started_commit ? *started_commit : "");
  auto cpu = eval::cpu_device(*db, calibration_cache(settings));  // (calibrates this machine on first use)
  if (!cpu) return usage(cpu.error().what());
  auto opt = eval_options(settings);
  auto factory = evaluation_factory(*catalog, opt, *cpu, find_cuda_backend(*db, opt));
  Judging judging(repo->get(), *db, *catalog, factory, JudgingConfig{*policy, false, "none"});

  // One pending winner: its outcome, reason and (when promoted) commit and kernel.
  auto settle = [&](const store::CandidateRecord& rec, nlohmann::json& r) {
    // An earlier promotion whose commit landed but whose decision was not written: record it.
    if (auto landed = library::landed_promotion(**repo, rec.id)) {
      if (auto d = decisions.record({rec.id, "promoted", "recovered after an interrupted promotion", landed->commit,
                                     std::nullopt, ""});
          !d) {
        r.update({{"outcome", "error"},
                  {"reason", "its promotion landed in commit " + landed->commit + " but its decision could not be "
                             "recorded: " + d.error().what()}});
        return;
      }
      r.update({{"outcome", "promoted"}, {"reason", "already in the library (recovered an interrupted promotion)"},
                {"commit", landed->commit}, {"kernel", landed->kernel}});
      return;
    }
    auto source = objects.get(rec.source_sha256);
    if (!source) {
      r.update({{"outcome", "error"}, {"reason", "source object missing: " + source.error().what()}});
      return;
    }
    core::Candidate cand{rec.id, rec.op, rec.variant, rec.backend, *source, rec.source_name, rec.flags, rec.note};
    store::CandidateRecord full = rec;
    full.bench.clear();  // every bench workload, whatever subset it was submitted with
    auto made = factory(full, *source, nullptr);  // fresh secret seeds: a new evaluation
    if (!made) {
      r.update({{"outcome", "error"}, {"reason", made.error().what()}});
      return;
    }
    core::Verdict v = eval::run_to_verdict(**made);
    cand.variant = v.variant;
    judging.judge(full, *source, v, **made);  // the incumbent is re-validated under the same spec version
    r["variant"] = v.variant.empty() ? rec.variant : v.variant;
    if (v.summary.geomean_vs_incumbent) r["geomean_vs_incumbent"] = *v.summary.geomean_vs_incumbent;
    // The evidence per bench workload: the interleaved comparison's label, ratio, interval, blocks.
    nlohmann::json evidence = nlohmann::json::array();
    for (const auto& w : v.workloads)
      if (w.comparison)
        evidence.push_back({{"workload", w.name}, {"label", w.comparison->label}, {"ratio", w.comparison->ratio},
                            {"low", w.comparison->low}, {"high", w.comparison->high},
                            {"confidence", w.comparison->confidence}, {"blocks", w.comparison->blocks},
                            {"samples", w.comparison->samples}});
    r["comparisons"] = evidence;
    r["workloads"] = library::workload_evidence(v);  // the figures per workload: median ±, samples, comparison
    if (v.summary.decision) r["decision"] = v.summary.decision->reason;
    if (v.summary.machine) r["machine"] = v.summary.machine->detail + (v.summary.machine->busy ? " (busy)" : "");
    if (v.status == core::Status::no_device || v.status == core::Status::error) {
      // This machine could not judge it (no GPU, a setup error): not the candidate's fault.
      r.update({{"outcome", "error"}, {"reason", std::string(core::status_name(v.status)) + ": " + v.reason}});
      return;
    }
    if (v.status != core::Status::accepted) {
      r.update({{"outcome", "regressed"},
                {"reason", "no longer accepted: " + std::string(core::status_name(v.status)) + ": " + v.reason}});
      return;
    }
    if (!v.summary.beats_incumbent.value_or(false)) {
      r.update({{"outcome", v.summary.beats_incumbent ? "no_longer_wins" : "error"}, {"reason", v.reason}});
      return;
    }
    if (auto d = decisions.find(rec.id); !d || *d) {  // a reviewer decided meanwhile
      r.update({{"outcome", "conflict"}, {"reason", "decided by a reviewer while kwb ci promote evaluated it"}});
      return;
    }
    auto done = library::promote(**repo, {cand, v, catalog->find(rec.op, v.spec_version), "ci"});
    if (!done) {
      r.update({{"outcome", "error"}, {"reason", done.error().what()}});
    } else if (done->kind != library::PromotionResult::Kind::committed) {
      r.update({{"outcome", done->kind == library::PromotionResult::Kind::conflict ? "conflict" : "refused"},
                {"reason", done->reason}});
    } else {
      auto recorded = decisions.record({rec.id, "promoted", "kwb ci promote", done->commit, std::nullopt, ""});
      bool mine = recorded && *recorded;
      r.update({{"outcome", mine ? "promoted" : "conflict"},
                {"reason", mine ? v.reason : "committed " + done->commit + ", but a decision was recorded meanwhile"},
                {"commit", done->commit}, {"kernel", done->kernel}});
    }
  };

  nlohmann::json results = nlohmann::json::array();
  int promoted = 0, failed = 0;
  for (const auto& rec : pending) {
    auto c0 = std::chrono::steady_clock::now();
    nlohmann::json r = {{"id", rec.id}, {"op", rec.op}, {"variant", rec.variant}, {"backend", rec.backend},
                        {"outcome", ""}, {"reason", ""}, {"commit", ""}, {"geomean_vs_incumbent", nullptr}};
    settle(rec, r);
    r["fails_job"] = r["outcome"] != "promoted" && !(r["outcome"] == "no_longer_wins" && a.no_longer_wins == "pass");
    // A winner that no longer wins under fresh seeds is rejected, so it stops being pending.
    if (r["outcome"] == "regressed" || r["outcome"] == "no_longer_wins")
      if (auto d = decisions.record({rec.id, "rejected", "kwb ci promote: " + r["reason"].get<std::string>(), "",
                                     std::nullopt, ""});
          !d) {  // it stays pending: the next run re-validates it again
        spdlog::warn("ci promote: {}: its rejection was not recorded: {}", rec.id, d.error().what());
        r["reason"] = r["reason"].get<std::string>() + " (its rejection could not be recorded: " + d.error().what() + ")";
      }
    r["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    // The agent's view of it: GET /v1/candidates/{id} "ci" and a `ci` event (docs/api.md).
    nlohmann::json event = {{"outcome", r["outcome"]}, {"reason", r["reason"]},
                            {"commit", r["commit"] == "" ? nlohmann::json(nullptr) : r["commit"]}};
    if (auto e = events.append(rec.id, "ci", event); !e)
      std::fprintf(stderr, "kwb ci promote: %s: the ci event was not stored: %s\n", rec.id.c_str(), e.error().what().c_str());
    promoted += r["outcome"] == "promoted";
    failed += r["fails_job"].get<bool>();
    std::printf("%-9s %s %s/%s/%s: %s\n", r["outcome"].get<std::string>().c_str(), rec.id.c_str(), rec.op.c_str(),
                r["variant"].get<std::string>().c_str(), rec.backend.c_str(), r["reason"].get<std::string>().c_str());
    results.push_back(r);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto final_commit = (*repo)->head();
  nlohmann::json report = {{"schema", "kwb.ci-promote.v1"},
                           {"library", (*repo)->path().string()},
                           {"started_commit", started_commit ? *started_commit : ""},
                           {"final_commit", final_commit ? *final_commit : ""},
                           {"policy",
                            {{"min_gain_pct", policy->min_gain_pct},
                             {"same_margin_pct", policy->same_margin_pct},
                             {"max_regression_pct", policy->max_regression_pct},
                             {"confidence", policy->confidence},
                             {"decide_budget_ms", policy->decide_budget_ms},
                             {"min_blocks", policy->min_blocks},
                             {"gpu_precision_pct", policy->gpu_precision_pct},
                             {"gpu_block_ms", policy->gpu_block_ms},
                             {"cpu_min_gain_pct", policy->cpu_min_gain_pct},
                             {"cpu_same_margin_pct", policy->cpu_same_margin_pct},
                             {"no_longer_wins", a.no_longer_wins}}},
                           {"dry_run", false},
                           {"summary", {{"pending", pending.size()}, {"promoted", promoted}, {"failed", failed}}},
                           {"left_to_reviewer", left_to_reviewer},
                           {"seconds", seconds},
                           {"candidates", results}};
  if (auto w = write_ci_reports(a, report, seconds); !w) return usage(w.error().what());
  std::printf("kwb ci promote: %zu pending, %d promoted, %d failed (%.1f s)\n", pending.size(), promoted, failed, seconds);
  return failed > 0 ? 1 : 0;
}

}  // namespace

void add_ci_command(CLI::App& app, util::Settings& settings, int& code) {
  auto* ci = app.add_subcommand("ci", "Continuous-integration tasks");
  ci->require_subcommand(1);
  auto a = std::make_shared<CiArgs>();
  auto* promote = ci->add_subcommand(
      "promote", "Re-validate pending winners with fresh seeds, re-time the incumbents, promote those that still win");
  promote->add_option("--policy", a->policy,
                      "JSON policy file: {\"min_gain_pct\": 3, \"same_margin_pct\": 2, \"max_regression_pct\": 5, "
                      "\"confidence\": 0.99, \"decide_budget_ms\": 3000, \"min_blocks\": 0}");
  promote->add_option("--report-json", a->report_json, "Write the kwb.ci-promote.v1 JSON report here");
  promote->add_option("--junit", a->junit, "Write a JUnit XML report here");
  promote->add_option("--op", a->ops, "Only these ops (repeatable)");
  promote->add_option("--limit", a->limit, "At most this many candidates")->default_val(100);
  promote->add_flag("--dry-run", a->dry_run,
                    "List the pending winners it would re-validate and promote, from their stored verdicts; evaluate, "
                    "record and commit nothing");
  promote->add_option("--no-longer-wins", a->no_longer_wins,
                      "A pending winner that no longer wins when re-timed: 'fail' the job (exit 1, a JUnit failure) or "
                      "'pass' (reported and rejected all the same, a JUnit skipped case)")
      ->check(CLI::IsMember({"fail", "pass"}))
      ->default_val("fail");
  add_setting_flags(*promote, settings);
  promote->callback([a, &settings, &code] { code = run_ci_promote(*a, settings); });
}

}  // namespace kwb::app
