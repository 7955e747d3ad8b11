#include "library/promotion.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/backend.hpp"
#include "library/snapshot.hpp"
#include "library/promotion_gate.hpp"
#include "library/referee.hpp"
#include "library/region_decision.hpp"
#include "util/hash.hpp"

namespace kwb::library {

namespace {

using Kind = PromotionResult::Kind;

PromotionResult refused(std::string reason) { return {Kind::refused, std::move(reason), "", ""}; }
PromotionResult conflict(std::string reason) { return {Kind::conflict, std::move(reason), "", ""}; }

bool is_spec_param(const core::Spec* spec, const std::string& name) {
  if (!spec) return true;
  return std::find(spec->params.begin(), spec->params.end(), name) != spec->params.end();
}

// The configs of the timed bench workloads (`only`: of these workloads alone).
std::vector<DispatchConfig> configs_of(const PromotionRequest& req, const std::vector<std::string>* only = nullptr) {
  std::vector<DispatchConfig> out;
  for (const auto& w : req.verdict.workloads) {
    if (w.kind != "bench" || !w.time) continue;
    if (only && std::find(only->begin(), only->end(), w.name) == only->end()) continue;
    DispatchConfig c;
    c.workload = w.name;
    for (const auto& [k, v] : w.params) (is_spec_param(req.spec, k) ? c.params : c.tune)[k] = v;
    c.median_ns = w.time->median_ns;
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::json metadata(const PromotionRequest& req, const std::string& entry_symbol, const core::IncumbentRef& inc,
                        const std::string& replaces) {
  const auto& v = req.verdict;
  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& w : v.workloads) {
    if (w.kind != "bench" || !w.time) continue;
    workloads.push_back({{"name", w.name}, {"params", w.params}, {"median_ns", w.time->median_ns},
                         {"stderr_pct", w.time->mean_stderr_pct}, {"samples", w.time->samples},
                         {"vs_incumbent", w.vs_incumbent ? nlohmann::json(*w.vs_incumbent) : nlohmann::json()}});
  }
  return {{"op", v.op},
          {"spec_version", v.spec_version},
          {"variant", v.variant},
          {"backend", v.backend},
          {"entry", entry_symbol},
          {"summary", req.candidate.note},
          {"author", "candidate " + req.candidate.id},
          {"candidate", req.candidate.id},
          {"flags", req.candidate.flags},
          {"evidence",
           {{"device", v.device},
            {"toolchain", v.toolchain},
            {"reason", v.reason},
            {"replaces", replaces},
            {"compared_at_commit", inc.commit},
            {"geomean_vs_incumbent", v.summary.geomean_vs_incumbent ? nlohmann::json(*v.summary.geomean_vs_incumbent)
                                                                    : nlohmann::json()},
            {"workloads", workloads}}}};
}

// A promotion where the incumbents hold regions (docs/library.md "Shape regions"): one entry per
// region the candidate won, with that region's bounds; the other regions keep their incumbents.
struct RegionalPlan {
  std::vector<DispatchEntry> entries;
  std::vector<std::string> regions, replaced;
  std::optional<PromotionResult> stop;  // refused or conflict
};

std::string slots_text(const Dispatch& d, const core::Verdict& v, const std::string& dc) {
  std::string out;
  for (const auto* e : d.serving(v.op, v.variant, v.backend, dc))
    out += e->kernel + "@" + e->device_class + "(" + e->region.text() + ") ";
  return out;
}

util::Result<RegionalPlan> regional_plan(Repository& repo, const PromotionRequest& req, const Dispatch& head,
                                         const std::string& dc, const DispatchEntry& model) {
  const auto& v = req.verdict;
  RegionalPlan plan;
  const core::IncumbentRef compared = v.summary.incumbent.value_or(core::IncumbentRef{});
  auto then_text = repo.read("dispatch.json", compared.commit);
  auto then = then_text ? parse_dispatch(*then_text) : util::Result<Dispatch>(std::unexpected(then_text.error()));
  if (compared.commit.empty() || !then || slots_text(*then, v, dc) != slots_text(head, v, dc)) {
    plan.stop = conflict(fmt::format("the incumbents of the regions of {}/{}/{} changed since this candidate was "
                                     "measured (at {}): evaluate the candidate again against the new incumbents",
                                     v.op, v.variant, v.backend, compared.commit.empty() ? "no commit" : compared.commit.substr(0, 12)));
    return plan;
  }
  if (!req.spec) {
    plan.stop = refused("the op's incumbents hold regions and the spec of " + v.op + " is not known here: its bench "
                        "workloads' params place them in regions");
    return plan;
  }
  std::vector<const core::Workload*> timed;
  for (const auto& w : req.spec->bench_workloads)
    for (const auto& r : v.workloads)
      if (r.kind == "bench" && r.name == w.name && r.time) timed.push_back(&w);
  for (const auto& share : shares_of(head, v.op, v.variant, v.backend, dc, timed)) {
    if (!share.incumbent || !region_won(share.workloads, v)) continue;
    DispatchEntry e = model;
    e.region = share.incumbent->region;
    e.configs = configs_of(req, &share.workloads);
    if (core::is_backend(v.backend, core::Backend::cpu)) e.entry = share.incumbent->entry;
    plan.entries.push_back(std::move(e));
    plan.regions.push_back(share.incumbent->region.text());
    plan.replaced.push_back(share.incumbent->kernel);
  }
  if (plan.entries.empty())
    plan.stop = refused("the candidate wins no region of " + v.op + "/" + v.variant + "/" + v.backend + ": " + v.reason);
  return plan;
}

}  // namespace

std::optional<LandedPromotion> landed_promotion(Repository& repo, const std::string& candidate_id) {
  auto snap = read_head(repo);
  if (!snap) return std::nullopt;
  for (const auto& e : snap->dispatch.entries)
    if (e.candidate == candidate_id) {
      auto logs = repo.log(e.kernel, 1);
      return LandedPromotion{logs && !logs->empty() ? logs->front().id : snap->commit, e.kernel};
    }
  return std::nullopt;
}

std::string promoted_path(const core::Candidate& c, const std::string& variant) {
  const auto form = core::parse_backend(c.backend).value_or(core::Backend::cpu);
  return c.op + "/" + c.backend + "/" + variant + "_" + c.id + std::string(core::source_extension(form));
}

util::Result<PromotionResult> promote(Repository& repo, const PromotionRequest& req) {
  const auto& v = req.verdict;
  if (v.status != core::Status::accepted)
    return refused(fmt::format("the verdict is {}, not accepted: {}", core::status_name(v.status), v.reason));
  // docs/architecture.md "Candidate forms": a cuda-launcher runs its own host code, so a person
  // must read it before it ships.
  if (core::reviewer_only(req.candidate.backend) && (req.reviewer == "ci" || req.reviewer == "auto-promote"))
    return refused("a cuda-launcher kernel runs its own host code: its promotion needs a reviewer (kwb promote ID, "
                   "or POST /v1/candidates/ID/promote with a reviewer token), not " + req.reviewer);
  // First, as the surest refusal: the evidence must cover every bench workload (a "bench" subset is
  // for iterating), whatever became of the comparison.
  if (req.spec) {
    std::vector<std::string> missing;
    for (const auto& w : req.spec->bench_workloads) {
      if (!w.runs_on(v.backend)) continue;
      bool timed = false;
      for (const auto& r : v.workloads) timed = timed || (r.kind == "bench" && r.name == w.name && r.time);
      if (!timed) missing.push_back(w.name);
    }
    if (!missing.empty())
      return refused(fmt::format("the candidate was not timed on every bench workload (missing: {}); it was submitted "
                                 "with a bench subset: submit it again without \"bench\" to promote it",
                                 fmt::join(missing, ", ")));
  }
  if (!v.summary.beats_incumbent)
    return refused("the candidate was not compared with the library's incumbent (evaluated without a library, or the "
                   "comparison could not be made: " + v.reason + ")");
  if (!*v.summary.beats_incumbent) return refused("the candidate does not beat the incumbent: " + v.reason);
  if (v.sanitizer && (v.sanitizer->status == "findings" || v.sanitizer->status == "failed"))
    return refused("compute-sanitizer did not run the candidate clean: " + v.sanitizer->reason);
  const std::string dc = device_class(v, req.device_class);
  if (dc == "any")
    return refused("the verdict does not say which device class it was measured on (device '" + v.device + "')");

  // The branch may move under us for another op; retry on top of the new head as long as the
  // incumbent this verdict was compared with is still the one in place.
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto snap = read_head(repo);
    if (!snap) return std::unexpected(snap.error());
    const std::string* head = &snap->commit;
    Dispatch* dispatch = &snap->dispatch;
    const DispatchEntry* now = dispatch->incumbent(v.op, v.variant, v.backend, dc);
    const bool regional = dispatch->regional(v.op, v.variant, v.backend, dc);
    core::IncumbentRef compared = v.summary.incumbent.value_or(core::IncumbentRef{});
    std::string now_sha;
    if (now && !regional) {
      auto src = repo.read(now->kernel, *head);
      if (!src) return std::unexpected(src.error());
      now_sha = util::sha256_hex(*src);
    }
    if (!regional && (now_sha != compared.source_sha256 || (now && now->kernel != compared.kernel)))
      return conflict(fmt::format("the incumbent of {}/{}/{} changed since this candidate was measured (it was {}, "
                                  "now {}): evaluate the candidate again against the new incumbent",
                                  v.op, v.variant, v.backend, compared.kernel.empty() ? "none" : compared.kernel,
                                  now ? now->kernel + " at " + head->substr(0, 12) : "none"));

    DispatchEntry entry;
    entry.op = v.op;
    entry.variant = v.variant;
    entry.backend = v.backend;
    entry.device_class = dc;
    entry.kernel = promoted_path(req.candidate, v.variant);
    const bool cpu = core::is_backend(v.backend, core::Backend::cpu);  // a cpu kernel names its exported symbol
    entry.entry = cpu ? "kwb_" + v.op + "_" + v.variant : "";
    if (cpu && now) entry.entry = now->entry;
    entry.candidate = req.candidate.id;
    entry.spec_version = v.spec_version;
    entry.configs = configs_of(req);
    std::string meta_path = std::filesystem::path(entry.kernel).replace_extension(".json").generic_string();
    std::map<std::string, std::string> files;
    files[entry.kernel] = req.candidate.source;
    std::string replaces = compared.kernel, region_trailer, region_text;
    nlohmann::json meta;
    if (regional) {
      auto plan = regional_plan(repo, req, *dispatch, dc, entry);
      if (!plan) return std::unexpected(plan.error());
      if (plan->stop) return *plan->stop;
      replaces = fmt::format("{}", fmt::join(plan->replaced, ", "));
      region_text = fmt::format("{}", fmt::join(plan->regions, "; "));
      region_trailer = "Kwb-Region: " + region_text + "\n";
      meta = metadata(req, plan->entries.front().entry, compared, replaces);
      if (plan->entries.size() == 1) meta["region"] = region_json(plan->entries.front().region);
      else
        for (const auto& e : plan->entries) meta["regions"].push_back(region_json(e.region));
      entry = plan->entries.front();
      for (auto& e : plan->entries) dispatch->upsert(std::move(e));
      if (auto why = dispatch->overlap(); !why.empty()) return refused("promoting it would leave " + why);
    } else {
      meta = metadata(req, entry.entry, compared, replaces);
      dispatch->upsert(entry);
    }
    files[meta_path] = meta.dump(2) + "\n";
    files["dispatch.json"] = dispatch_text(*dispatch);

    // The first kernel of an op and device class has no incumbent to be faster than.
    const auto& speedup = v.summary.geomean_vs_incumbent;
    const std::string speed = speedup ? fmt::format("{:.3f}x", *speedup) : "the first";
    std::string message = fmt::format("Promote {} as the {}/{}/{} incumbent on {}{} ({})\n\n", req.candidate.id, v.op,
                                      v.variant, v.backend, dc,
                                      region_text.empty() ? "" : " for " + region_text,
                                      speed);
    if (!req.candidate.note.empty()) message += req.candidate.note + "\n\n";
    message += v.reason + "\n\n";
    for (const auto& w : v.workloads)
      if (w.kind == "bench" && w.time)
        message += fmt::format("  {:<24} {:>12.0f} ns  {}\n", w.name, w.time->median_ns,
                               w.vs_incumbent ? fmt::format("{:.3f}x", *w.vs_incumbent) : "-");
    auto one_line = [](std::string s) {  // a trailer value never spans lines
      for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
      return s;
    };
    message += fmt::format("\nKwb-Candidate: {}\nKwb-Op: {}\nKwb-Variant: {}\nKwb-Backend: {}\nKwb-Device: {}\n"
                           "Kwb-Device-Class: {}\nKwb-Toolchain: {}\nKwb-Speedup: {}\nKwb-Replaces: {}\n"
                           "Kwb-Spec-Version: {}\n{}Kwb-Reviewer: {}\n",
                           req.candidate.id, v.op, v.variant, v.backend, one_line(v.device), dc,
                           one_line(v.toolchain), speedup ? fmt::format("{:.4f}", *speedup) : "none", replaces.empty() ? "none" : one_line(replaces),
                           v.spec_version, region_trailer, one_line(req.reviewer.empty() ? "unknown" : req.reviewer));
    if (auto san = sanitizer_trailer(v); !san.empty()) message += "Kwb-Sanitizer: " + one_line(san) + "\n";
    auto committed = repo.commit(*head, files, message);
    if (!committed) return std::unexpected(committed.error());
    if (committed->id) return PromotionResult{Kind::committed, "", *committed->id, entry.kernel};
  }
  return conflict("the library kept moving during the promotion (8 attempts); try again");
}

}  // namespace kwb::library
