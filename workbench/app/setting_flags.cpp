#include "app/commands.hpp"

namespace kwb::app {

void add_setting_flags(CLI::App& cmd, util::Settings& settings) {
  for (const auto& info : util::setting_table()) {
    std::string name = info.name;
    std::string help = std::string(info.description) + " [env " + info.env + "]";
    if (name == "specs") {  // repeatable: the flags replace the variable's list, and add up
      auto first = std::make_shared<bool>(true);
      cmd.add_option_function<std::vector<std::string>>(
             "--specs", [&settings, first](const std::vector<std::string>& dirs) {
               std::string list = *first ? "" : settings.get("specs");
               *first = false;
               for (const auto& d : dirs) list += (list.empty() ? "" : ":") + d;
               settings.set("specs", list);
             }, help)
          ->group("Settings")
          ->type_name("DIR")
          ->allow_extra_args(false)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      continue;
    }
    cmd.add_option_function<std::string>(
           "--" + name, [&settings, name](const std::string& v) { settings.set(name, v); }, help)
        ->group("Settings");
  }
}

}  // namespace kwb::app
