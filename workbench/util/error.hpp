#pragma once
// Expected failures are values (CONVENTIONS "Errors"): Result<T> = std::expected<T, Error>.
#include <expected>
#include <string>
#include <utility>

namespace kwb::util {

struct Error {
  std::string where;    // the thing and place: "specs/softmax/spec.json: workloads.test[2].params.cols"
  std::string message;  // what is wrong and, where possible, what to do

  std::string what() const { return where.empty() ? message : where + ": " + message; }
};

template <class T>
using Result = std::expected<T, Error>;

using Unexpected = std::unexpected<Error>;

inline std::unexpected<Error> fail(std::string where, std::string message) {
  return std::unexpected<Error>(Error{std::move(where), std::move(message)});
}

}  // namespace kwb::util
