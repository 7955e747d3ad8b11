// kwb spec ...: the spec toolkit's commands (docs/specs.md "Adding an op"). `spec add` is here;
// the others register beside it.
#include "app/commands.hpp"

namespace kwb::app {

void add_spec_add_command(CLI::App& spec, util::Settings& settings, int& code);

void add_spec_command(CLI::App& app, util::Settings& settings, int& code) {
  auto* cmd = app.add_subcommand("spec", "Work on operator specs: add one to the library (kwb specs lists them)");
  cmd->require_subcommand(1);
  add_spec_add_command(*cmd, settings, code);
}

}  // namespace kwb::app
