// kwb specs [OP]: list the operator specs, or show one.
#include <cstdio>
#include <iostream>

#include "app/commands.hpp"
#include <nlohmann/json.hpp>

#include "spec/loader.hpp"
#include "spec/spec_json.hpp"

namespace kwb::app {


void add_specs_command(CLI::App& app, util::Settings& settings, int& code) {
  auto op = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("specs", "List operator specs, or show one");
  cmd->add_option("op", *op, "Show this op in full");
  cmd->add_flag("--json", *json, "Print JSON");
  add_setting_flags(*cmd, settings);
  cmd->callback([op, json, &settings, &code] {
    auto catalog = spec::Catalog::load(settings.get("specs-dir"));
    if (!catalog) {
      std::fprintf(stderr, "kwb specs: %s\n", catalog.error().what().c_str());
      code = 2;
      return;
    }
    nlohmann::json out = nlohmann::json::array();
    for (const auto& name : catalog->ops()) {
      if (!op->empty() && name != *op) continue;
      out.push_back(spec::to_json(*catalog->find(name)));
    }
    if (!op->empty() && out.empty()) {
      std::fprintf(stderr, "kwb specs: unknown op '%s'\n", op->c_str());
      code = 2;
      return;
    }
    if (*json || !op->empty()) {
      std::cout << (op->empty() ? out : out[0]).dump(2) << "\n";
      return;
    }
    for (const auto& s : out) {
      std::string vs;
      for (const auto& v : s["variants"]) vs += (vs.empty() ? "" : ",") + v["name"].get<std::string>();
      std::printf("%-12s %-10s %s\n", s["op"].get<std::string>().c_str(), vs.c_str(), s["summary"].get<std::string>().c_str());
    }
  });
}

}  // namespace kwb::app
