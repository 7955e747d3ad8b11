// kwb specs [OP]: list the operator specs, or show one.
#include <cstdio>
#include <iostream>

#include "app/commands.hpp"
#include <nlohmann/json.hpp>

#include "app/spec_sources.hpp"
#include "client/api_client.hpp"
#include "spec/loader.hpp"
#include "spec/spec_json.hpp"

namespace kwb::app {

namespace {

// With --server or KWB_SERVER: the daemon's specs (GET /v1/specs[/{op}]) instead of local files.
int fetch_specs(const std::string& server, const std::string& token, const std::string& op, nlohmann::json& out) {
  client::ApiClient api(client::resolve_endpoint(server, token));
  auto reply = api.get(op.empty() ? "/v1/specs" : "/v1/specs/" + client::url_encode(op));
  if (!reply) return std::fprintf(stderr, "kwb specs: %s\n", reply.error().what().c_str()), 2;
  const auto& body = reply->body;
  if (!op.empty()) out.push_back(body);
  else if (body.is_object() && body.contains("specs") && body["specs"].is_array()) out = body["specs"];
  else return std::fprintf(stderr, "kwb specs: the daemon's reply has no specs array\n"), 2;
  return 0;
}

int load_specs(const util::Settings& settings, const std::string& op, nlohmann::json& out) {
  auto catalog = load_catalog(settings);
  if (!catalog) return std::fprintf(stderr, "kwb specs: %s\n", catalog.error().what().c_str()), 2;
  for (const auto& name : catalog->ops()) {
    if (!op.empty() && name != op) continue;
    out.push_back(spec::to_json(*catalog->find(name)));
  }
  return 0;
}

}  // namespace

void add_specs_command(CLI::App& app, util::Settings& settings, int& code) {
  auto op = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto server = std::make_shared<std::string>();
  auto token = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("specs", "List operator specs, or show one");
  cmd->add_option("op", *op, "Show this op in full");
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->add_option("--server", *server, "Ask this daemon instead of reading local specs [env KWB_SERVER]");
  cmd->add_option("--token", *token, "Bearer token for --server [env KWB_TOKEN]");
  add_setting_flags(*cmd, settings);
  cmd->callback([op, json, server, token, &settings, &code] {
    nlohmann::json out = nlohmann::json::array();
    code = client::server_named(*server) ? fetch_specs(*server, *token, *op, out)
                                         : load_specs(settings, *op, out);
    if (code != 0) return;
    if (!op->empty() && out.empty()) {
      std::fprintf(stderr, "kwb specs: unknown op '%s'\n", op->c_str());
      code = 2;
      return;
    }
    if (*json || !op->empty()) {
      std::cout << (op->empty() ? out : out[0]).dump(2) << "\n";
      return;
    }
    for (const auto& s : out) {
      std::string vs;
      for (const auto& v : s["variants"]) vs += (vs.empty() ? "" : ",") + v["name"].get<std::string>();
      std::printf("%-12s %-10s %s\n", s["op"].get<std::string>().c_str(), vs.c_str(), s["summary"].get<std::string>().c_str());
    }
  });
}

}  // namespace kwb::app
