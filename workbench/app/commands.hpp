#pragma once
// `kwb` subcommands. Each registers its options on the CLI11 app and returns the exit code
// (0 success/accepted, 1 any other verdict, 2 usage error) through `code`.
#include <CLI/CLI.hpp>

#include "util/settings.hpp"

namespace kwb::app {

void add_eval_command(CLI::App& app, util::Settings& settings, int& code);
void add_specs_command(CLI::App& app, util::Settings& settings, int& code);
void add_calibrate_command(CLI::App& app, util::Settings& settings, int& code);
void add_serve_command(CLI::App& app, util::Settings& settings, int& code);
void add_token_command(CLI::App& app, util::Settings& settings, int& code);
// Adds --specs-dir, --workspace, ... (from util::setting_table) to a subcommand.
void add_setting_flags(CLI::App& cmd, util::Settings& settings);

}  // namespace kwb::app
