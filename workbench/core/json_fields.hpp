#pragma once
// Reading and writing the optional fields of the verdict's JSON parts (core/feedback_json.cpp,
// core/profile_json.cpp): a field that is missing or of another type reads as empty, never throws
// (verdicts stored by older versions lack the newer fields).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kwb::core::json_fields {

using J = nlohmann::json;

template <class T>
J json_or_null(const std::optional<T>& v) {
  return v ? J(*v) : J(nullptr);
}
inline J text_or_null(const std::string& s) { return s.empty() ? J(nullptr) : J(s); }

inline std::optional<double> opt_number(const J& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}
inline double number(const J& j, const char* key) { return opt_number(j, key).value_or(0); }
inline std::optional<int64_t> opt_integer(const J& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<int64_t>(it->get<int64_t>()) : std::nullopt;
}
inline int64_t integer(const J& j, const char* key) { return opt_integer(j, key).value_or(0); }
inline std::string text(const J& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
inline const J& member(const J& j, const char* key) {
  static const J k_empty = J::object();
  auto it = j.find(key);
  return it != j.end() ? *it : k_empty;
}

}  // namespace kwb::core::json_fields
