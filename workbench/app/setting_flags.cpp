// Which settings each subcommand reads: the declaration that drives its --help (only the
// settings it reads appear there) and that util::Settings enforces (a read of an undeclared
// setting is a logic_error naming both), so the two cannot drift apart.
#include <map>
#include <set>

#include "app/commands.hpp"

namespace kwb::app {

namespace {

using SettingNames = std::set<std::string>;

template <class... More>
SettingNames settings_union(SettingNames first, const More&... more) {
  (first.insert(more.begin(), more.end()), ...);
  return first;
}

// The settings behind the shared helpers (library_support.hpp, spec_sources.hpp).
const SettingNames k_reads_workspace = {"workspace"};                                        // <workspace>/kwb.db
const SettingNames k_reads_library = {"workspace", "library", "kernels-dir"};                // library_path, open_or_seed
const SettingNames k_reads_catalog = {"workspace", "library", "specs", "specs-dir"};         // load_catalog
const SettingNames k_reads_evaluation = {"workspace",          "runner",          "bwrap",           "cxx",
                            "time-budget-ms",     "gpu-clock",       "compile-timeout-ms", "run-timeout-ms",
                            "reference-timeout-ms", "reference-cache", "threads",         "run-memory-mb",
                            "calibration-cache"};  // eval_options, calibration_cache
const SettingNames k_reads_decide = {"decide-budget-ms"};                                    // library::Policy
// The executor and its Slurm settings (executor_setup.cpp), and what `kwb worker` reads.
const SettingNames k_reads_fleet = {"executor",          "fleet-dir",            "worker-dir",      "slurm-partition",
                                    "slurm-gpu-partition", "slurm-device-classes", "slurm-time-limit-min", "slurm-max-tries", "slurm-exclusive",
                                    "slurm-sbatch-args", "slurm-bin-dir",        "slurm-poll-ms"};

// Subcommand path (without "kwb") -> the settings it reads.
const std::map<std::string, SettingNames>& declared_settings_by_command() {
  static const std::map<std::string, SettingNames> k = {
      {"eval", settings_union(k_reads_catalog, k_reads_evaluation, k_reads_library, k_reads_decide)},
      {"specs", k_reads_catalog},
      {"spec check", k_reads_evaluation},
      {"spec add", settings_union(k_reads_catalog, k_reads_library, k_reads_evaluation)},
      {"calibrate", k_reads_evaluation},
      {"serve", settings_union(k_reads_catalog, k_reads_library, k_reads_evaluation, k_reads_decide,
                               SettingNames{"auto-promote", "gpus"}, k_reads_fleet)},
      {"worker", settings_union(k_reads_catalog, k_reads_library, k_reads_evaluation, k_reads_decide,
                                SettingNames{"worker-dir"})},
      {"restore", k_reads_workspace},
      {"token create", k_reads_workspace},
      {"token list", k_reads_workspace},
      {"token revoke", k_reads_workspace},
      {"ci promote", settings_union(k_reads_catalog, k_reads_library, k_reads_evaluation, k_reads_decide)},
      {"tuning list", k_reads_workspace},
      {"tuning export", k_reads_workspace},
      {"tuning import", k_reads_workspace},
      {"export", settings_union(k_reads_catalog, k_reads_library)},
      {"retime", settings_union(k_reads_catalog, k_reads_library, k_reads_evaluation)},
      {"library report", settings_union(k_reads_catalog, k_reads_library, k_reads_evaluation)},
      // The embedded daemon is `kwb serve --workspace W`: it reads its other settings from KWB_*.
      {"mcp", k_reads_workspace},
  };
  return k;
}

std::string subcommand_path(const CLI::App& cmd) {
  std::string path = cmd.get_name();
  for (const CLI::App* p = cmd.get_parent(); p && p->get_parent(); p = p->get_parent()) path = p->get_name() + " " + path;
  return path;
}

}  // namespace

const std::set<std::string>& settings_read_by(const std::string& command) {
  auto it = declared_settings_by_command().find(command);
  if (it == declared_settings_by_command().end()) throw std::logic_error("kwb " + command + " declares no settings");
  return it->second;
}

void add_setting_flags(CLI::App& cmd, util::Settings& settings) {
  const std::string path = subcommand_path(cmd);
  auto it = declared_settings_by_command().find(path);
  if (it == declared_settings_by_command().end())
    throw std::logic_error("kwb " + path + " adds setting flags but declares none in app/setting_flags.cpp");
  const SettingNames names = it->second;
  // Once this subcommand is chosen, only its settings are readable.
  cmd.preparse_callback([&settings, names, path](size_t) { settings.limit_to(names, "kwb " + path); });
  for (const auto& info : util::setting_table()) {
    std::string name = info.name;
    if (!names.contains(name)) continue;
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
