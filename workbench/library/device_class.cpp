#include "library/device_class.hpp"

#include <sys/utsname.h>

#include <cctype>

#include <fmt/format.h>

namespace kwb::library {

int host_x86_level() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // The compiler's runtime (libgcc / compiler-rt) reads CPUID and XCR0 once.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) return 4;
  if (__builtin_cpu_supports("x86-64-v3")) return 3;
  if (__builtin_cpu_supports("x86-64-v2")) return 2;
  return 1;
#else
  return 0;
#endif
}

std::string host_cpu_class() {
  if (int level = host_x86_level()) return fmt::format("{}-v{}", k_legacy_x86_class, level);
  utsname u{};
  uname(&u);
  return std::string("cpu-") + u.machine;
}

int x86_level_of(std::string_view c) {
  const std::string prefix = std::string(k_legacy_x86_class) + "-v";
  if (c.size() != prefix.size() + 1 || !c.starts_with(prefix)) return 0;
  const char n = c.back();
  return n >= '1' && n <= '4' ? n - '0' : 0;
}

std::string why_not_a_device_class(std::string_view c) {
  if (c == "any" || x86_level_of(c)) return "";
  if (c == k_legacy_x86_class)
    return "'cpu-x86_64' names no ISA level: use cpu-x86_64-v1 .. cpu-x86_64-v4 (entries recorded under the legacy "
           "class 'cpu-x86_64' are read as the level asked for)";
  if (c.starts_with("cpu-x86_64"))
    return fmt::format("'{}' is not a CPU class: use cpu-x86_64-v1 .. cpu-x86_64-v4", c);
  auto word = [](std::string_view s) {
    if (s.empty()) return false;
    for (char ch : s)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
    return true;
  };
  if (c.starts_with("cpu-") && word(c.substr(4))) return "";
  if (c.starts_with("cuda-sm_") && word(c.substr(8))) return "";
  return fmt::format("'{}' is not a device class (any, cpu-x86_64-v1 .. cpu-x86_64-v4, cpu-<arch>, cuda-sm_<NN>)", c);
}

}  // namespace kwb::library
