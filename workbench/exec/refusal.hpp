#pragma once
// Why the intake refused a request (intake.hpp, submission.hpp): a code each surface maps to its
// own answer in one place (HTTP: api/http_util.cpp send_refusal; MCP: a tool error), the API's
// error type, and a message naming the field or the limit and what to do.
#include <string>

#include "util/error.hpp"

namespace kwb::exec {

enum class RefusalCode {
  invalid,        // a malformed request or field (HTTP 400)
  too_large,      // a source or body over its limit (413)
  unprocessable,  // well-formed but not acceptable: unknown op, class, flag, key reused (422)
  not_found,      // the candidate named does not exist (404)
  quota,          // too many candidates of this token in flight (429, retry later)
  store,          // the store refused (full disk 507, busy database 503, else 500): `store_error`
};

struct Refusal {
  RefusalCode code = RefusalCode::invalid;
  std::string type;      // "invalid_field", "unknown_op", "queue_quota", "idempotency_conflict", ...
  std::string message;   // "op: unknown op 'x' (known: ...)"
  util::Error store_error = {};  // code store
  int retry_after_s = 0;         // > 0: when to try again (quota)
};

inline Refusal store_refusal(util::Error e) {
  return Refusal{RefusalCode::store, "store", e.what(), std::move(e), 0};
}

}  // namespace kwb::exec
