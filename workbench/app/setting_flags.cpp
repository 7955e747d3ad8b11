#include "app/commands.hpp"

namespace kwb::app {

void add_setting_flags(CLI::App& cmd, util::Settings& settings) {
  for (const auto& info : util::setting_table()) {
    std::string name = info.name;
    std::string help = std::string(info.description) + " [env " + info.env + "]";
    cmd.add_option_function<std::string>(
           "--" + name, [&settings, name](const std::string& v) { settings.set(name, v); }, help)
        ->group("Settings");
  }
}

}  // namespace kwb::app
