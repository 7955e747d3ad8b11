// kwb token create|list|revoke: manage API tokens in the workspace database (local admin).
#include <cstdio>

#include "app/commands.hpp"
#include "app/workspace_access.hpp"
#include "store/token_repository.hpp"

namespace kwb::app {

void add_token_command(CLI::App& app, util::Settings& settings, int& code) {
  auto* cmd = app.add_subcommand("token", "Create, list or revoke API tokens (stored hashed in the workspace database)");
  cmd->require_subcommand(1);
  auto role = std::make_shared<std::string>("agent");
  auto name = std::make_shared<std::string>("unnamed");
  auto init = std::make_shared<bool>(false);
  auto* create = cmd->add_subcommand("create", "Create a token and print it (shown once)");
  create->add_option("--role", *role, "agent | reviewer | admin")->default_val("agent");
  create->add_option("--name", *name, "A label for the token (1 to 64 printable bytes)");
  add_init_flag(*create, *init);
  add_setting_flags(*create, settings);
  create->callback([role, name, init, &settings, &code] {
    auto db = open_workspace_db(settings, *init);
    if (!db) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", db.error().what().c_str()));
    store::TokenRepository tokens(*db);
    auto secret = tokens.create(*name, *role);
    if (!secret) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", secret.error().what().c_str()));
    std::printf("%s\n", secret->c_str());
  });
  auto* list = cmd->add_subcommand("list", "List tokens (never their secrets)");
  add_init_flag(*list, *init);
  add_setting_flags(*list, settings);
  list->callback([init, &settings, &code] {
    auto db = open_workspace_db(settings, *init);
    if (!db) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", db.error().what().c_str()));
    store::TokenRepository tokens(*db);
    auto all = tokens.all();
    if (!all) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", all.error().what().c_str()));
    for (const auto& t : *all)
      std::printf("%-4lld %-10s %-20s %s%s\n", (long long)t.id, t.role.c_str(), t.name.c_str(), t.created_at.c_str(),
                  t.revoked ? " revoked" : "");
  });
  // A running daemon reads tokens on every request, so the revocation holds from its next one.
  auto id = std::make_shared<int64_t>(0);
  auto* revoke = cmd->add_subcommand("revoke", "Revoke a token by id (see `kwb token list`); effective at once");
  revoke->add_option("id", *id, "The token's id")->required()->check(CLI::PositiveNumber);
  add_init_flag(*revoke, *init);
  add_setting_flags(*revoke, settings);
  revoke->callback([id, init, &settings, &code] {
    auto db = open_workspace_db(settings, *init);
    if (!db) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", db.error().what().c_str()));
    store::TokenRepository tokens(*db);
    auto rec = tokens.find(*id);
    if (!rec) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", rec.error().what().c_str()));
    if (!*rec) return (void)(code = 2, std::fprintf(stderr, "kwb token: no token %lld\n", (long long)*id));
    if ((*rec)->revoked) return (void)std::printf("token %lld (%s) was revoked already\n", (long long)*id, (*rec)->name.c_str());
    auto done = tokens.revoke(*id);
    if (!done) return (void)(code = 2, std::fprintf(stderr, "kwb token: %s\n", done.error().what().c_str()));
    std::printf("revoked token %lld (%s, %s)\n", (long long)*id, (*rec)->name.c_str(), (*rec)->role.c_str());
  });
}

}  // namespace kwb::app
