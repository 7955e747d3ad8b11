#include "app/workspace_access.hpp"

#include <cstdlib>

namespace kwb::app {

void add_init_flag(CLI::App& cmd, bool& init) {
  cmd.add_flag("--init", init, "Create the workspace (its kwb.db) when it does not exist yet");
}

util::Result<void> require_workspace(const util::Settings& settings, bool init) {
  const std::filesystem::path workspace = settings.get("workspace");
  std::error_code ec;
  if (init || std::filesystem::is_regular_file(workspace / "kwb.db", ec)) return {};
  const char* env = std::getenv("KWB_WORKSPACE");
  const std::string from = env && *env && workspace == env ? " (from KWB_WORKSPACE)" : "";
  const std::string what = std::filesystem::exists(workspace, ec) ? "holds no kwb.db" : "does not exist";
  return util::fail("workspace " + workspace.string() + from,
                    what + ": not a workspace yet (a daemon's is where `kwb serve` runs, default <source>/workspace); "
                           "check --workspace, or pass --init to create one there");
}

util::Result<store::Database> open_workspace_db(const util::Settings& settings, bool init) {
  if (auto ok = require_workspace(settings, init); !ok) return std::unexpected(ok.error());
  const std::filesystem::path workspace = settings.get("workspace");
  std::error_code ec;
  std::filesystem::create_directories(workspace, ec);
  return store::Database::open(workspace / "kwb.db");
}

}  // namespace kwb::app
