#pragma once
// Expected failures are values (docs/architecture.md "Errors are values"): Result<T> is a std::expected<T, Error> that cannot be dropped
// unseen ([[nodiscard]]; the project compiles with -Werror=unused-result, so a dropped Result is
// a compile error). A caller handles it, propagates it, or drops it by name with
// util::ignore(result, why) (util/ignore.hpp), which logs a dropped error once.
// An error carries a kind where a caller must act on it (the HTTP layer maps kinds to statuses in
// one place, api/http_util.cpp); most errors are `generic` and only reach a person.
#include <expected>
#include <string>
#include <utility>

namespace kwb::util {

enum class ErrorKind {
  generic,
  not_found,     // the thing named does not exist
  storage_full,  // no space left for the workspace (ENOSPC, SQLITE_FULL): free space, retry later
  busy,          // the database is locked by another connection past the bounded wait: retry later
};

const char* kind_name(ErrorKind k);

struct Error {
  std::string where;    // the thing and place: "specs/softmax/spec.json: workloads.test[2].params.cols"
  std::string message;  // what is wrong and, where possible, what to do
  ErrorKind kind = ErrorKind::generic;

  std::string what() const { return where.empty() ? message : where + ": " + message; }
};

inline const char* kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::not_found: return "not_found";
    case ErrorKind::storage_full: return "storage_full";
    case ErrorKind::busy: return "busy";
    case ErrorKind::generic: break;
  }
  return "generic";
}

// std::expected<T, Error> with every constructor and assignment of it, plus a conversion from a
// plain std::expected<T, Error> (what and_then / transform return), so both convert either way.
template <class T>
class [[nodiscard("a dropped Result loses its error: handle it, return it, or util::ignore(result, why)")]] Result
    : public std::expected<T, Error> {
 public:
  using Expected = std::expected<T, Error>;
  using Expected::Expected;
  using Expected::operator=;  // assigning a value or an unexpected in place, as std::expected does
  constexpr Result(const Expected& other) : Expected(other) {}
  constexpr Result(Expected&& other) : Expected(std::move(other)) {}
};

using Unexpected = std::unexpected<Error>;

inline std::unexpected<Error> fail(std::string where, std::string message) {
  return std::unexpected<Error>(Error{std::move(where), std::move(message)});
}

inline std::unexpected<Error> fail(ErrorKind kind, std::string where, std::string message) {
  return std::unexpected<Error>(Error{std::move(where), std::move(message), kind});
}

}  // namespace kwb::util
