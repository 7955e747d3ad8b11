#pragma once
// kwb library report (library_report_command.cpp): a subcommand of the client command `library`
// that reads (or, with --measure, fills) the workspace's stored scorecard.
#include <CLI/CLI.hpp>

#include "util/settings.hpp"

namespace kwb::app {
void add_library_report_command(CLI::App& library_cmd, util::Settings& settings, int& code);
}  // namespace kwb::app
