#pragma once
// Type checks of the small JSON bodies (tokens, reject, cancel, promote): every field is known
// and of its type, or the answer is a 400 naming it (the submit body has api/submission.cpp).
#include <httplib.h>

#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::api {

// The body as a JSON object whose fields are all in `allowed` (an empty body is {}); nullopt
// after writing 400 invalid_json / invalid_field.
std::optional<nlohmann::json> object_body(const httplib::Request& req, httplib::Response& res,
                                          std::initializer_list<const char*> allowed);
// For routes that take no fields: an empty body or {}.
bool empty_or_object_body(const httplib::Request& req, httplib::Response& res);
// A string field of at most `max_bytes`; absent: `out` unchanged (or 400 when required).
bool string_field(const nlohmann::json& body, const char* name, bool required, size_t max_bytes, std::string& out,
                  httplib::Response& res);

}  // namespace kwb::api
