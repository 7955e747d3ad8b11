// kwb: the Kernel Workbench command line.
#include <cstdio>

#include "app/commands.hpp"
#include "app/library_report_command.hpp"
#include "util/similar.hpp"

namespace {

// After a parse error: the first word that is not a subcommand where one is expected, with the
// closest subcommand's name ("kwb: unknown command 'sumbit'; did you mean 'submit'?").
bool suggest_subcommand(CLI::App& app, int argc, char** argv) {
  CLI::App* cur = &app;
  std::string path = "kwb";
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    auto subs = cur->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) return false;
    std::vector<std::string> names;
    CLI::App* next = nullptr;
    for (auto* s : subs) {
      names.push_back(s->get_name());
      if (s->get_name() == word) next = s;
    }
    if (next) {
      cur = next;
      path += " " + word;
      continue;
    }
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    if (auto near = kwb::util::closest_name(word, names))
      std::fprintf(stderr, "%s: unknown command '%s'; did you mean '%s'? (commands: %s)\n", path.c_str(), word.c_str(),
                   near->c_str(), list.c_str());
    else
      std::fprintf(stderr, "%s: unknown command '%s' (commands: %s)\n", path.c_str(), word.c_str(), list.c_str());
    return true;
  }
  return false;
}

}  // namespace

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
  app::add_worker_command(app, settings, code);
  app::add_submit_command(app, code);
  app::add_profile_command(app, code);
  app::add_status_command(app, code);
  app::add_list_command(app, code);
  app::add_review_commands(app, code);
  app::add_library_report_command(*app.get_subcommand("library"), settings, code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (!suggest_subcommand(app, argc, argv)) app.exit(e);
    return 2;
  }
  return code;
}
