#include "util/ignore.hpp"

#include "util/log.hpp"

namespace kwb::util {

void log_ignored(const Error& error, std::string_view why) {
  log_event(spdlog::level::warn, "ignored_error",
            {{"why", why}, {"error", error.what()}, {"kind", kind_name(error.kind)}});
}

}  // namespace kwb::util
