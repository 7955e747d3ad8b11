// kwb calibrate: measure this machine's CPU copy bandwidth again and store it.
#include <cstdio>

#include "app/commands.hpp"
#include "eval/cpu_device.hpp"
#include "store/database.hpp"

namespace kwb::app {

void add_calibrate_command(CLI::App& app, util::Settings& settings, int& code) {
  auto* cmd = app.add_subcommand("calibrate", "Measure the device peaks (CPU copy bandwidth) and store them in the workspace");
  add_setting_flags(*cmd, settings);
  cmd->callback([&settings, &code] {
    auto db = store::Database::open(std::filesystem::path(settings.get("workspace")) / "kwb.db");
    if (!db) {
      std::fprintf(stderr, "kwb calibrate: %s\n", db.error().what().c_str());
      code = 2;
      return;
    }
    auto dev = eval::cpu_device(*db, true);
    if (!dev) {
      std::fprintf(stderr, "kwb calibrate: %s\n", dev.error().what().c_str());
      code = 2;
      return;
    }
    std::printf("%s: copy bandwidth %.2f GB/s (one thread, read + write), last-level cache %zu MiB\n",
                dev->name.c_str(), dev->copy_bytes_per_s / 1e9, dev->llc_bytes >> 20);
  });
}

}  // namespace kwb::app
