#include "build/flags.hpp"

#include <array>
#include <string_view>

namespace kwb::build {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

constexpr std::array<std::string_view, 18> k_denied_prefixes = {
    "-fplugin", "-specs", "--specs", "-B", "@", "-Xlinker", "-Wl,", "-Wa,", "-Wp,", "-I", "-isystem",
    "-iquote", "-idirafter", "-include", "-imacros", "-L", "--sysroot", "-wrapper"};
constexpr std::array<std::string_view, 8> k_denied_exact = {"-o", "-l", "-save-temps", "-x", "-fdump-",
                                                            "-v", "-###", "-E"};
constexpr std::array<std::string_view, 6> k_allowed_prefixes = {"-O", "-f", "-m", "-D", "-U", "-W"};

}  // namespace

util::Result<void> check_flags(const std::vector<std::string>& flags) {
  for (size_t i = 0; i < flags.size(); ++i) {
    std::string_view f = flags[i];
    std::string where = "flags[" + std::to_string(i) + "]";
    for (char c : f)  // a newline could forge lines of commit trailers or tuning files downstream
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return util::fail(where, "flag contains a control character (newline, tab, ...)");
    for (auto p : k_denied_prefixes)
      if (starts_with(f, p))
        return util::fail(where, "flag '" + std::string(f) + "' is not allowed: it can load code or read "
                                 "files outside the candidate (allowed: -O*, -f*, -m*, -D*, -U*, -W*)");
    for (auto e : k_denied_exact)
      if (f == e || (e.back() == '-' && starts_with(f, e)))
        return util::fail(where, "flag '" + std::string(f) + "' is not allowed");
    if (starts_with(f, "-fprofile") || starts_with(f, "-fdump") || starts_with(f, "-fauto-profile") ||
        starts_with(f, "-fsanitize-blacklist") || starts_with(f, "-fsanitize-ignorelist") ||
        starts_with(f, "-fdebug-prefix-map") || starts_with(f, "-fmacro-prefix-map") ||
        starts_with(f, "-fcreate-profile") || starts_with(f, "-fopenmp"))
      return util::fail(where, "flag '" + std::string(f) + "' is not allowed: it reads or writes files "
                               "or changes the threading model");
    bool allowed = false;
    for (auto p : k_allowed_prefixes)
      if (starts_with(f, p)) allowed = true;
    if (!allowed)
      return util::fail(where, "flag '" + std::string(f) + "' is not allowed (allowed: -O*, -f*, -m*, -D*, -U*, -W*)");
  }
  return {};
}

}  // namespace kwb::build
