// kwb profile ID [--wait]: ask a running daemon for a profile of a candidate (POST
// /v1/candidates/{id}/profile): the candidate is evaluated again, as a new candidate with
// "profile": true whose verdict's profile says what came of it (docs/verdict.md "Profiles").
#include <cstdio>
#include <iostream>

#include "app/commands.hpp"
#include "client/api_client.hpp"

namespace kwb::app {

namespace {

struct ProfileArgs {
  std::string id, server, token;
  bool wait = false, json = false;
};

int run_profile(const ProfileArgs& a) {
  client::ApiClient api(client::resolve_endpoint(a.server, a.token));
  auto reply = api.post("/v1/candidates/" + a.id + "/profile", nlohmann::json::object());
  if (!reply) {
    std::fprintf(stderr, "kwb profile: %s\n", reply.error().what().c_str());
    return 2;
  }
  std::string id = reply->body.is_object() ? reply->body.value("id", std::string()) : std::string();
  if (id.empty()) return std::fprintf(stderr, "kwb profile: the daemon's reply has no id: %s\n", reply->raw.c_str()), 2;
  if (!a.wait) {
    if (a.json)
      std::cout << reply->body.dump(2) << "\n";
    else
      std::printf("%s\n", id.c_str());
    return 0;
  }
  std::fprintf(a.json ? stderr : stdout, "%s profiling %s\n", id.c_str(), a.id.c_str());
  std::fflush(stdout);
  return follow_and_print(api, id, a.json, "profile");
}

}  // namespace

void add_profile_command(CLI::App& app, int& code) {
  auto a = std::make_shared<ProfileArgs>();
  auto* cmd = app.add_subcommand("profile", "Ask a running daemon for a profile of a candidate: it is evaluated again "
                                            "as a new candidate with \"profile\": true (print its id, or with --wait "
                                            "its verdict, whose profile says what came of it: no_device without a "
                                            "GPU). Exit 0 queued/accepted, 1 any other verdict, 2 usage or HTTP error");
  cmd->add_option("id", a->id, "The candidate to profile (c-...)")->required();
  cmd->add_flag("--wait", a->wait, "Follow the new candidate to its verdict");
  cmd->add_flag("--json", a->json, "Print JSON: the reply, or with --wait the kwb.verdict.v1 verdict");
  cmd->add_option("--server", a->server, "Daemon URL [env KWB_SERVER, default http://127.0.0.1:8470]");
  cmd->add_option("--token", a->token, "Bearer token [env KWB_TOKEN]");
  cmd->callback([a, &code] { code = run_profile(*a); });
}

}  // namespace kwb::app
