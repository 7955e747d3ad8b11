#pragma once
// Validation of a submit body (POST /v1/candidates) into a candidate record. Errors carry the
// HTTP status, an error type and a message naming the field.
#include <optional>
#include <variant>
#include <string>

#include <nlohmann/json.hpp>

#include "api/context.hpp"
#include "store/candidate_repository.hpp"

namespace kwb::api {

struct SubmitError {
  int status = 400;
  std::string type, message;
};

struct Submission {
  store::CandidateRecord rec;
  std::string source;
  std::string request_sha256;  // of the normalised body: an Idempotency-Key replay must match it
};

// `body` is the raw request body (checked for valid UTF-8 and JSON).
std::variant<Submission, SubmitError> parse_submission(const std::string& body, const ApiContext& ctx);

}  // namespace kwb::api
