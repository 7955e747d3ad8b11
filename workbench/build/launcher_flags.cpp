#include "build/launcher_flags.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace kwb::build {

namespace {

constexpr const char* k_allowed =
    "allowed: -O0..-O3, -D*, -U*, -W* (not -Wl,/-Wa,/-Wp,), --use_fast_math, -lineinfo, -lcublas, -lcublasLt, "
    "--extra-device-vectorization, -maxrregcount=N";

constexpr std::array<std::string_view, 5> k_exact = {"--use_fast_math", "-lineinfo", "-lcublas", "-lcublasLt",
                                                     "--extra-device-vectorization"};

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 4 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A macro value: printable ASCII that the shell leaves alone inside double quotes, and no blanks
// (a value with a space would read as two words to anything downstream that splits flags).
bool is_macro_value(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return c > 0x20 && c < 0x7f && c != '$' && c != '`' && c != '"' && c != '\\' && c != '\'' && c != ';' &&
           c != '&' && c != '|' && c != '!' && c != '#';
  });
}

// -W names: letters, digits and - _ = , + . (e.g. -Wno-deprecated-gpu-targets, -Werror=all-warnings).
bool is_warning_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '=' || c == ',' || c == '+' || c == '.';
  });
}

util::Result<void> refuse(const std::string& where, std::string_view flag, const std::string& why) {
  return util::fail(where, "flag '" + std::string(flag) + "' is not allowed" + (why.empty() ? "" : ": " + why) +
                               " (" + k_allowed + ")");
}

}  // namespace

util::Result<void> check_launcher_flags(const std::vector<std::string>& flags) {
  for (size_t i = 0; i < flags.size(); ++i) {
    std::string_view f = flags[i];
    std::string where = "flags[" + std::to_string(i) + "]";
    for (char c : f)  // a newline could forge lines of commit trailers or tuning files downstream
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return util::fail(where, "flag contains a control character (newline, tab, ...)");
    if (std::find(k_exact.begin(), k_exact.end(), f) != k_exact.end()) continue;
    if (f.starts_with("-maxrregcount=")) {
      if (all_digits(f.substr(14))) continue;
      return refuse(where, f, "-maxrregcount takes a register count");
    }
    if (f.starts_with("-O")) {
      if (f.size() == 3 && f[2] >= '0' && f[2] <= '3') continue;
      return refuse(where, f, "-O takes one optimisation level (-O0 .. -O3)");
    }
    if (f.starts_with("-D")) {
      std::string_view def = f.substr(2);
      size_t eq = def.find('=');
      if (is_identifier(def.substr(0, eq)) && (eq == std::string_view::npos || is_macro_value(def.substr(eq + 1))))
        continue;
      return refuse(where, f, "-D takes NAME or NAME=VALUE, the value without blanks, quotes, $, `, \\, ;, &, |, !, #");
    }
    if (f.starts_with("-U")) {
      if (is_identifier(f.substr(2))) continue;
      return refuse(where, f, "-U takes a macro name");
    }
    if (f.starts_with("-W")) {
      if (f.starts_with("-Wl,") || f.starts_with("-Wa,") || f.starts_with("-Wp,"))
        return refuse(where, f, "it passes options to the linker, assembler or preprocessor");
      if (is_warning_name(f.substr(2))) continue;
      return refuse(where, f, "-W takes a warning name");
    }
    if (f.starts_with("-l") || f.starts_with("--library") || f.starts_with("-L") || f.starts_with("-Xlinker") ||
        f.starts_with("--linker-options") || f.starts_with("-I") || f.starts_with("-isystem") ||
        f.starts_with("--include-path") || f.starts_with("-include") || f.starts_with("-ccbin") ||
        f.starts_with("--compiler-bindir") || f.starts_with("-X") || f.starts_with("--options-file") ||
        f.starts_with("-optf") || f.starts_with("--pre-include") || f.starts_with("-o") ||
        f.starts_with("--output-file") || f.starts_with("-keep") || f.starts_with("--keep") ||
        f.starts_with("-save-temps") || f.starts_with("--dryrun") || f.starts_with("--run-args"))
      return refuse(where, f, "it can load code, read or write files outside the candidate, or change the "
                              "toolchain or the linker");
    return refuse(where, f, "");
  }
  return {};
}

std::vector<std::string> launcher_libraries(const std::vector<std::string>& flags) {
  std::vector<std::string> libs;
  for (const auto& f : flags)
    if ((f == "-lcublas" || f == "-lcublasLt") && std::find(libs.begin(), libs.end(), f) == libs.end())
      libs.push_back(f);
  return libs;
}

}  // namespace kwb::build
