// kwb status ID [--wait]: one candidate of a running daemon, with its verdict once done.
#include <cctype>
#include <cstdio>
#include <iostream>

#include "app/commands.hpp"
#include "app/verdict_table.hpp"
#include "client/api_client.hpp"
#include "client/follow.hpp"
#include "client/stage_lines.hpp"
#include "core/verdict_parse.hpp"

namespace kwb::app {

namespace {

struct StatusArgs {
  std::string id, server, token;
  bool wait = false, json = false;
};

std::string text(const nlohmann::json& j, const char* key, const char* fallback = "-") {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string(fallback);
}

// Prints a terminal candidate: the verdict table or JSON. Exit 0 accepted, 1 otherwise.
int print_final(const nlohmann::json& cand, bool json, const char* cmd) {
  if (text(cand, "state") == "cancelled") {
    if (json)
      std::cout << cand.dump(2) << "\n";
    else
      std::printf("cancelled  %s %s\n", text(cand, "id").c_str(), text(cand, "op").c_str());
    return 1;
  }
  if (!cand.contains("verdict") || cand["verdict"].is_null())
    return std::fprintf(stderr, "kwb %s: %s is done but the daemon sent no verdict\n", cmd, text(cand, "id").c_str()), 2;
  auto verdict = core::verdict_from_json(cand["verdict"]);
  if (!verdict) return std::fprintf(stderr, "kwb %s: %s\n", cmd, verdict.error().what().c_str()), 2;
  if (json)
    std::cout << cand["verdict"].dump(2) << "\n";
  else
    std::cout << render_verdict(*verdict);
  return verdict->status == core::Status::accepted ? 0 : 1;
}

bool valid_id(const std::string& id) {
  if (id.size() != 18 || id.compare(0, 2, "c-") != 0) return false;
  for (size_t i = 2; i < id.size(); ++i)
    if (!std::isdigit((unsigned char)id[i]) && (id[i] < 'a' || id[i] > 'f')) return false;
  return true;
}

int run_status(const StatusArgs& a) {
  if (!valid_id(a.id))
    return std::fprintf(stderr, "kwb status: '%s' is not a candidate id (expected c- and 16 hex digits)\n", a.id.c_str()), 2;
  client::ApiClient api(client::resolve_endpoint(a.server, a.token));
  if (a.wait) return follow_and_print(api, a.id, a.json, "status");
  auto reply = api.get("/v1/candidates/" + a.id);
  if (!reply) return std::fprintf(stderr, "kwb status: %s\n", reply.error().what().c_str()), 2;
  const auto& cand = reply->body;
  if (!cand.is_object()) return std::fprintf(stderr, "kwb status: the daemon's reply is not a JSON object\n"), 2;
  std::string state = text(cand, "state");
  if (a.json) {
    std::cout << cand.dump(2) << "\n";
    if (!client::terminal_state(state)) return 0;
    return state == "done" && text(cand, "status", "") == "accepted" ? 0 : 1;
  }
  if (client::terminal_state(state)) {
    int rc = print_final(cand, false, "status");
    // What happened after the verdict: a reviewer's or CI's decision, the last kwb ci promote run.
    if (cand.contains("decision") && cand["decision"].is_object())
      std::printf("decision: %s%s%s\n", text(cand["decision"], "decision").c_str(),
                  text(cand["decision"], "reason", "").empty() ? "" : (": " + text(cand["decision"], "reason")).c_str(),
                  text(cand["decision"], "commit", "").empty() ? "" : (" (commit " + text(cand["decision"], "commit") + ")").c_str());
    if (cand.contains("ci") && cand["ci"].is_object())
      std::printf("ci: %s: %s\n", text(cand["ci"], "outcome").c_str(), text(cand["ci"], "reason").c_str());
    return rc;
  }
  std::string what = text(cand, "op") + (text(cand, "variant", "").empty() ? "" : "/" + text(cand, "variant"));
  std::printf("%s  %s  %s  created %s\n", a.id.c_str(), what.c_str(), state.c_str(), text(cand, "created_at").c_str());
  return 0;
}

int run_cancel(const StatusArgs& a) {
  if (!valid_id(a.id))
    return std::fprintf(stderr, "kwb cancel: '%s' is not a candidate id (expected c- and 16 hex digits)\n", a.id.c_str()), 2;
  client::ApiClient api(client::resolve_endpoint(a.server, a.token));
  auto reply = api.post("/v1/candidates/" + a.id + "/cancel", nlohmann::json::object());
  if (!reply) return std::fprintf(stderr, "kwb cancel: %s\n", reply.error().what().c_str()), 2;
  if (a.json) {
    std::cout << reply->body.dump(2) << "\n";
  } else {
    std::printf("%s %s: %s\n", a.id.c_str(), text(reply->body, "state").c_str(), text(reply->body, "detail").c_str());
  }
  return 0;
}

}  // namespace

int follow_and_print(client::ApiClient& api, const std::string& id, bool json, const char* cmd) {
  client::StageLines lines;
  FILE* live = json ? stderr : stdout;  // --json keeps stdout for the JSON document
  client::FollowOptions opt;
  opt.on_event = [&](const client::CandidateEvent& e) {
    if (auto l = lines.on_event(e)) {
      std::fprintf(live, "%s\n", l->c_str());
      std::fflush(live);
    }
  };
  opt.on_note = [cmd](const std::string& note) { std::fprintf(stderr, "kwb %s: %s\n", cmd, note.c_str()); };
  auto cand = client::follow_candidate(api, id, opt);
  if (!cand) return std::fprintf(stderr, "kwb %s: %s\n", cmd, cand.error().what().c_str()), 2;
  return print_final(*cand, json, cmd);
}

void add_status_command(CLI::App& app, int& code) {
  auto a = std::make_shared<StatusArgs>();
  auto* cmd = app.add_subcommand("status", "Show one candidate of a running daemon: its state and, once done, its "
                                           "verdict. Exit 0 accepted or still running, 1 other verdict or cancelled, "
                                           "2 usage or HTTP error");
  cmd->add_option("id", a->id, "Candidate id (c-0123456789abcdef)")->required();
  cmd->add_flag("--wait", a->wait, "Follow it to its verdict, a line per stage");
  cmd->add_flag("--json", a->json, "Print the candidate JSON (with --wait: the kwb.verdict.v1 verdict)");
  cmd->add_option("--server", a->server, "Daemon URL [env KWB_SERVER, default http://127.0.0.1:8470]");
  cmd->add_option("--token", a->token, "Bearer token [env KWB_TOKEN]");
  cmd->callback([a, &code] { code = run_status(*a); });

  auto c = std::make_shared<StatusArgs>();
  auto* cancel = app.add_subcommand("cancel", "Cancel a queued or running candidate of a running daemon (its owner, a "
                                              "reviewer or an admin): a queued one at once, a running one after its "
                                              "current stage. Exit 0 done (also when it had finished), 2 usage or HTTP error");
  cancel->add_option("id", c->id, "Candidate id (c-0123456789abcdef)")->required();
  cancel->add_flag("--json", c->json, "Print the daemon's reply {id, state, detail} as JSON");
  cancel->add_option("--server", c->server, "Daemon URL [env KWB_SERVER, default http://127.0.0.1:8470]");
  cancel->add_option("--token", c->token, "Bearer token [env KWB_TOKEN]");
  cancel->callback([c, &code] { code = run_cancel(*c); });
}

}  // namespace kwb::app
