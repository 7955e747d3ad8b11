#pragma once
// `kwb` subcommands. Each registers its options on the CLI11 app and returns the exit code
// (0 success/accepted, 1 any other verdict, 2 usage error) through `code`.
#include <set>
#include <string>

#include <CLI/CLI.hpp>

#include "util/settings.hpp"

namespace kwb::client {
class ApiClient;
}

namespace kwb::app {

void add_eval_command(CLI::App& app, util::Settings& settings, int& code);
void add_specs_command(CLI::App& app, util::Settings& settings, int& code);
void add_spec_command(CLI::App& app, util::Settings& settings, int& code);  // spec new|check|add
void add_calibrate_command(CLI::App& app, util::Settings& settings, int& code);
void add_serve_command(CLI::App& app, util::Settings& settings, int& code);
void add_restore_command(CLI::App& app, util::Settings& settings, int& code);  // restore [BACKUP]
void add_token_command(CLI::App& app, util::Settings& settings, int& code);
void add_ci_command(CLI::App& app, util::Settings& settings, int& code);      // ci promote
void add_tuning_command(CLI::App& app, util::Settings& settings, int& code);  // tuning list|export|import
void add_export_command(CLI::App& app, util::Settings& settings, int& code);  // export --out DIR
void add_retime_command(CLI::App& app, util::Settings& settings, int& code);  // retime OP
void add_mcp_command(CLI::App& app, util::Settings& settings, int& code);     // MCP on stdio
void add_worker_command(CLI::App& app, util::Settings& settings, int& code);  // a Slurm job's device stages
// Clients of a running daemon (--server URL > KWB_SERVER > http://127.0.0.1:8470).
void add_submit_command(CLI::App& app, int& code);
void add_profile_command(CLI::App& app, int& code);  // profile ID: a profile pass of a candidate
void add_status_command(CLI::App& app, int& code);
void add_list_command(CLI::App& app, int& code);
void add_review_commands(CLI::App& app, int& code);  // promote, reject, diff, leaderboard, library
// Adds the settings a subcommand reads (declared per subcommand in setting_flags.cpp, e.g. only
// --workspace on `token list`) as flags, and limits `settings` to them once it is chosen.
void add_setting_flags(CLI::App& cmd, util::Settings& settings);
// The settings a subcommand ("worker", "token list") declares (setting_flags.cpp).
const std::set<std::string>& settings_read_by(const std::string& command);
// Follows a daemon's candidate to its terminal state with a line per stage, then prints the
// verdict table (or the verdict JSON); returns 0 accepted, 1 any other verdict, 2 errors
// (status_command.cpp; used by submit --wait and status --wait).
int follow_and_print(client::ApiClient& api, const std::string& id, bool json, const char* cmd);

}  // namespace kwb::app
