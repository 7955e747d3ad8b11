#pragma once
// Dropping a Result on purpose, by name (a dropped Result does not compile: util/error.hpp):
//     util::ignore(util::write_file_atomic(cached, text), "a failed cache write only costs a re-run");
// When the result holds an error it is logged once, at warn level, with the why (event
// "ignored_error" with fields why, error, kind: util/log.hpp); a success logs nothing.
// Only for a failure that loses nothing anyone needs: where a dropped error loses a stored record,
// log what was lost and for which candidate, and return the error where a caller can act on it.
#include <expected>
#include <string_view>

#include "util/error.hpp"

namespace kwb::util {

// The warning util::ignore writes for an error it drops.
void log_ignored(const Error& error, std::string_view why);

template <class T>
void ignore(const std::expected<T, Error>& result, std::string_view why) {
  if (!result) log_ignored(result.error(), why);
}

}  // namespace kwb::util
