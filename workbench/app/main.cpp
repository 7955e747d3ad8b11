// kwb: the Kernel Workbench command line.
#include <cstdio>

#include "app/commands.hpp"

int main(int argc, char** argv) {
  using namespace kwb;
  util::Settings settings = util::Settings::from_environment();
  CLI::App app{"Kernel Workbench: evaluate, time and keep CPU and GPU kernels against trusted specs", "kwb"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kwb ") + KWB_VERSION);
  int code = 0;
  app::add_eval_command(app, settings, code);
  app::add_specs_command(app, settings, code);
  app::add_spec_command(app, settings, code);
  app::add_calibrate_command(app, settings, code);
  app::add_serve_command(app, settings, code);
  app::add_restore_command(app, settings, code);
  app::add_token_command(app, settings, code);
  app::add_ci_command(app, settings, code);
  app::add_tuning_command(app, settings, code);
  app::add_export_command(app, settings, code);
  app::add_retime_command(app, settings, code);
  app::add_mcp_command(app, settings, code);
  app::add_submit_command(app, code);
  app::add_status_command(app, code);
  app::add_list_command(app, code);
  app::add_review_commands(app, code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  return code;
}
