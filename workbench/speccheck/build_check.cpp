#include "speccheck/build_check.hpp"

#include <fmt/format.h>


namespace kwb::speccheck {

bool check_reference_build(const core::Spec& spec, const ReferenceBuilder& build, Findings& out) {
  auto result = build(spec);
  if (!result) {
    out.reference_error("", "could not be built: " + result.error().what());
    return false;
  }
  size_t reported = 0;
  for (const auto& d : result->diagnostics) {
    if (d.severity != "error" && d.severity != "warning") continue;
    ++reported;
    const bool own = d.file == out.reference_file();
    const std::string where = d.line > 0 ? fmt::format("{}:{}", d.line, d.col) : "";
    const std::string what = fmt::format("{} with -Wall -Wextra: {}", d.severity == "error" ? "does not compile" : "warns",
                                         d.message);
    if (own) out.reference_error(where, what);
    else out.add(d.file, where, Severity::error, what + " (in a header " + out.reference_file() + " includes)");
  }
  if (!result->ok && reported == 0) out.reference_error("", "does not build: " + result->reason);
  return result->ok;
}

}  // namespace kwb::speccheck
