#pragma once
// One table of settings drives defaults, environment variables, --help and docs
// (docs/architecture.md "Settings"). Order: defaults < KWB_* environment < command-line flags.
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>

namespace kwb::util {

struct SettingInfo {
  const char* name;         // flag name without dashes, e.g. "specs-dir"
  const char* env;          // environment variable, e.g. "KWB_SPECS_DIR"
  const char* default_value;  // "" = computed (see description)
  const char* description;
};

std::span<const SettingInfo> setting_table();

class Settings {
 public:
  // Defaults then environment.
  static Settings from_environment();
  const std::string& get(const std::string& name) const;
  int64_t get_int(const std::string& name) const;
  void set(const std::string& name, std::string value);  // flags override
  // From now on only these settings may be read: what `reader` (a subcommand, "kwb token
  // list") declared. Reading another one is a programming error (std::logic_error naming both):
  // the declaration drives that subcommand's --help, so it must list what the code reads.
  void limit_to(std::set<std::string> names, std::string reader);

 private:
  std::map<std::string, std::string> m_values;
  std::optional<std::set<std::string>> m_readable;  // nullopt: every setting
  std::string m_reader;
};

// Root of the source tree this binary was built from (default for specs/, kernels/, workspace/).
std::string source_dir();
// Directory holding the running executable (kwb-runner is looked up beside kwb).
std::string executable_dir();

}  // namespace kwb::util
