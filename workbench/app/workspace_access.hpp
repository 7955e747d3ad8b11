#pragma once
// Commands that read or change a workspace's state (token, tuning, calibrate, retime, export)
// open an existing workspace: one whose kwb.db exists. A mistyped --workspace would otherwise
// create a new, empty database (and, for `token create`, a token no daemon knows). `--init`
// creates it; `kwb serve` always does (the README's first command starts on a fresh clone).
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "store/database.hpp"
#include "util/settings.hpp"

namespace kwb::app {

// Adds --init ("create the workspace when it does not exist") to a subcommand.
void add_init_flag(CLI::App& cmd, bool& init);
// Fails unless <workspace>/kwb.db exists or `init`, with a message naming the folder, the setting
// it came from and the way out.
util::Result<void> require_workspace(const util::Settings& settings, bool init);
// require_workspace, then opens <workspace>/kwb.db (creating the folder with `init`).
util::Result<store::Database> open_workspace_db(const util::Settings& settings, bool init);

}  // namespace kwb::app
