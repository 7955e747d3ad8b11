#include "api/body_fields.hpp"

#include "api/http_util.hpp"

namespace kwb::api {

std::optional<nlohmann::json> object_body(const httplib::Request& req, httplib::Response& res,
                                          std::initializer_list<const char*> allowed) {
  auto j = nlohmann::json::parse(req.body.empty() ? std::string("{}") : req.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    send_error(res, 400, "invalid_json", "body: expected a JSON object");
    return std::nullopt;
  }
  std::string names;
  for (const char* a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) {
      send_error(res, 400, "invalid_field",
                 key.substr(0, 64) + ": unknown field (" + (names.empty() ? "this route takes no fields" : "expected: " + names) + ")");
      return std::nullopt;
    }
  }
  return j;
}

bool empty_or_object_body(const httplib::Request& req, httplib::Response& res) {
  return object_body(req, res, {}).has_value();
}

bool string_field(const nlohmann::json& body, const char* name, bool required, size_t max_bytes, std::string& out,
                  httplib::Response& res) {
  if (!body.contains(name)) {
    if (required) send_error(res, 400, "invalid_field", std::string(name) + ": required field is missing");
    return !required;
  }
  const auto& v = body[name];
  if (!v.is_string()) {
    send_error(res, 400, "invalid_field", std::string(name) + ": expected string, got " + v.type_name());
    return false;
  }
  if (v.get_ref<const std::string&>().size() > max_bytes) {
    send_error(res, 400, "invalid_field", std::string(name) + ": longer than " + std::to_string(max_bytes) + " bytes");
    return false;
  }
  out = v.get<std::string>();
  return true;
}

}  // namespace kwb::api
