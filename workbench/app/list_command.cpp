// kwb list: candidates of a running daemon, newest first (GET /v1/candidates, following `next`).
#include <cstdio>
#include <iostream>
#include <tuple>

#include "app/commands.hpp"
#include "client/api_client.hpp"
#include "core/filters.hpp"

namespace kwb::app {

namespace {

struct ListArgs {
  std::string op, state, status, server, token;
  int limit = 50;
  bool json = false;
};

constexpr int k_page_max = 500;  // the daemon's largest page

std::string text(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string("-");
}

int run_list(const ListArgs& a) {
  if (a.limit < 1) return std::fprintf(stderr, "kwb list: --limit must be at least 1\n"), 2;
  // Checked here too (the daemon refuses them as well; --op only the daemon knows).
  for (auto [flag, value, valid] : {std::tuple{"--state", &a.state, &core::candidate_states()},
                                    std::tuple{"--status", &a.status, &core::verdict_statuses()}})
    if (!value->empty())
      if (auto why = core::refuse_unknown(std::string(flag + 2), *value, *valid))
        return std::fprintf(stderr, "kwb list: %s: %s\n", flag, why->c_str()), 2;
  client::ApiClient api(client::resolve_endpoint(a.server, a.token));
  std::string query;
  auto add = [&](const char* k, const std::string& v) {
    if (!v.empty()) query += std::string("&") + k + "=" + client::url_encode(v);
  };
  add("op", a.op);
  add("state", a.state);
  add("status", a.status);
  nlohmann::json items = nlohmann::json::array();
  std::string path = "/v1/candidates?limit=" + std::to_string(std::min(a.limit, k_page_max)) + query;
  while (!path.empty() && int(items.size()) < a.limit) {
    auto reply = api.get(path);
    if (!reply) return std::fprintf(stderr, "kwb list: %s\n", reply.error().what().c_str()), 2;
    const auto& body = reply->body;
    if (!body.is_object() || !body.contains("items") || !body["items"].is_array())
      return std::fprintf(stderr, "kwb list: the daemon's reply has no items array\n"), 2;
    for (const auto& it : body["items"])
      if (int(items.size()) < a.limit) items.push_back(it);
    path = body.contains("next") && body["next"].is_string() ? body["next"].get<std::string>() : "";  // keeps the filters
  }
  if (a.json) {
    std::cout << items.dump(2) << "\n";
    return 0;
  }
  std::printf("%-18s  %-24s  %-12s  %-17s  %s\n", "id", "op/variant", "state", "status", "created");
  for (const auto& c : items) {
    std::string what = text(c, "op");
    if (c.contains("variant") && c["variant"].is_string() && !c["variant"].get<std::string>().empty())
      what += "/" + c["variant"].get<std::string>();
    std::printf("%-18s  %-24s  %-12s  %-17s  %s\n", text(c, "id").c_str(), what.c_str(), text(c, "state").c_str(),
                text(c, "status").c_str(), text(c, "created_at").c_str());
  }
  if (items.empty()) std::printf("(no candidates)\n");
  return 0;
}

}  // namespace

void add_list_command(CLI::App& app, int& code) {
  auto a = std::make_shared<ListArgs>();
  auto* cmd = app.add_subcommand("list", "List candidates of a running daemon, newest first");
  cmd->add_option("--op", a->op, "Only this op");
  cmd->add_option("--state", a->state, "Only this state (queued, analyzing, compiling, validating, benchmarking, "
                                       "deciding, done, cancelled)");
  cmd->add_option("--status", a->status, "Only this verdict status (accepted, incorrect, compile_error, ...)");
  cmd->add_option("--limit", a->limit, "At most this many (pages of 500 are followed)")->default_val(50);
  cmd->add_flag("--json", a->json, "Print the candidates as a JSON array");
  cmd->add_option("--server", a->server, "Daemon URL [env KWB_SERVER, default http://127.0.0.1:8470]");
  cmd->add_option("--token", a->token, "Bearer token [env KWB_TOKEN]");
  cmd->callback([a, &code] { code = run_list(*a); });
}

}  // namespace kwb::app
