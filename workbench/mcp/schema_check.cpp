#include "mcp/schema_check.hpp"

#include <regex>

namespace kwb::mcp {

namespace {

using nlohmann::json;

bool has_type(const json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "integer") return v.is_number_integer() || (v.is_number_float() && v.get<double>() == double(int64_t(v.get<double>())));
  if (t == "number") return v.is_number();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  return false;
}

std::string shown(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

std::string type_list(const json& t) {
  if (t.is_string()) return t.get<std::string>();
  std::string out;
  for (const auto& x : t) out += (out.empty() ? "" : " or ") + x.get<std::string>();
  return out;
}

std::string range_text(const json& s) {
  if (s.contains("minimum") && s.contains("maximum"))
    return " in [" + s["minimum"].dump() + ", " + s["maximum"].dump() + "]";
  if (s.contains("minimum")) return " >= " + s["minimum"].dump();
  if (s.contains("maximum")) return " <= " + s["maximum"].dump();
  return "";
}

}  // namespace

std::optional<std::string> schema_problem(const json& s, const json& v, const std::string& path) {
  if (s.contains("type")) {
    const json& t = s["type"];
    bool fits = false;
    if (t.is_string()) fits = has_type(v, t.get<std::string>());
    else for (const auto& x : t) fits = fits || has_type(v, x.get<std::string>());
    if (!fits) return path + ": expected " + type_list(t) + range_text(s) + ", got " + shown(v);
  }
  if (s.contains("enum")) {
    bool found = false;
    for (const auto& e : s["enum"]) found = found || e == v;
    if (!found) {
      std::string allowed;
      for (const auto& e : s["enum"]) allowed += (allowed.empty() ? "" : ", ") + e.dump();
      return path + ": expected one of " + allowed + ", got " + shown(v);
    }
  }
  if (v.is_number()) {
    double d = v.get<double>();
    if ((s.contains("minimum") && d < s["minimum"].get<double>()) || (s.contains("maximum") && d > s["maximum"].get<double>()))
      return path + ": expected a value" + range_text(s) + ", got " + shown(v);
  }
  if (v.is_string()) {
    const auto& str = v.get_ref<const std::string&>();
    if (s.contains("minLength") && str.size() < s["minLength"].get<size_t>())
      return path + ": must not be shorter than " + s["minLength"].dump() + " characters";
    if (s.contains("maxLength") && str.size() > s["maxLength"].get<size_t>())
      return path + ": longer than " + s["maxLength"].dump() + " bytes";
    if (s.contains("pattern") && !std::regex_search(str, std::regex(s["pattern"].get<std::string>())))
      return path + ": expected a value matching " + s["pattern"].get<std::string>() + ", got " + shown(v);
  }
  if (v.is_array()) {
    if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>())
      return path + ": expected at least " + s["minItems"].dump() + " items";
    if (s.contains("maxItems") && v.size() > s["maxItems"].get<size_t>())
      return path + ": expected at most " + s["maxItems"].dump() + " items";
    if (s.contains("items"))
      for (size_t i = 0; i < v.size(); ++i)
        if (auto p = schema_problem(s["items"], v[i], path + "[" + std::to_string(i) + "]")) return p;
  }
  if (v.is_object()) {
    const json props = s.value("properties", json::object());
    for (const auto& r : s.value("required", json::array()))
      if (!v.contains(r.get<std::string>())) return path + "." + r.get<std::string>() + ": required";
    for (const auto& [key, item] : v.items()) {
      if (props.contains(key)) {
        if (auto p = schema_problem(props[key], item, path + "." + key)) return p;
      } else if (s.contains("additionalProperties")) {
        const json& extra = s["additionalProperties"];
        if (extra.is_boolean() && !extra.get<bool>()) {
          std::string known;
          for (const auto& [k, _] : props.items()) known += (known.empty() ? "" : ", ") + k;
          return path + "." + key + ": unknown argument (expected: " + known + ")";
        }
        if (extra.is_object())
          if (auto p = schema_problem(extra, item, path + "." + key)) return p;
      }
    }
  }
  return std::nullopt;
}

}  // namespace kwb::mcp
