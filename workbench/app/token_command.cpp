// kwb token create|list: manage API tokens in the workspace database (local admin).
#include <cstdio>

#include "app/commands.hpp"
#include "store/token_repository.hpp"

namespace kwb::app {

void add_token_command(CLI::App& app, util::Settings& settings, int& code) {
  auto* cmd = app.add_subcommand("token", "Create or list API tokens (stored hashed in the workspace database)");
  cmd->require_subcommand(1);
  auto role = std::make_shared<std::string>("agent");
  auto name = std::make_shared<std::string>("unnamed");
  auto* create = cmd->add_subcommand("create", "Create a token and print it (shown once)");
  create->add_option("--role", *role, "agent | reviewer | admin")->default_val("agent");
  create->add_option("--name", *name, "A label for the token");
  add_setting_flags(*create, settings);
  create->callback([role, name, &settings, &code] {
    auto db = store::Database::open(std::filesystem::path(settings.get("workspace")) / "kwb.db");
    if (!db) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", db.error().what().c_str()));
    store::TokenRepository tokens(*db);
    auto secret = tokens.create(*name, *role);
    if (!secret) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", secret.error().what().c_str()));
    std::printf("%s\n", secret->c_str());
  });
  auto* list = cmd->add_subcommand("list", "List tokens (never their secrets)");
  add_setting_flags(*list, settings);
  list->callback([&settings, &code] {
    auto db = store::Database::open(std::filesystem::path(settings.get("workspace")) / "kwb.db");
    if (!db) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", db.error().what().c_str()));
    store::TokenRepository tokens(*db);
    auto all = tokens.all();
    if (!all) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", all.error().what().c_str()));
    for (const auto& t : *all)
      std::printf("%-4lld %-10s %-20s %s%s\n", (long long)t.id, t.role.c_str(), t.name.c_str(), t.created_at.c_str(),
                  t.revoked ? " revoked" : "");
  });
}

}  // namespace kwb::app
