#pragma once
// Private to kwb::spec: typed, path-tracking access to a parsed JSON document. Every check
// records the first error as `<file>: <json.path>: <reason>` and returns false, so the loader
// reads as a list of checks and stops at the first failure.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/error.hpp"

namespace kwb::spec::detail {

using Json = nlohmann::ordered_json;

// Parses `text` (comments allowed, duplicate keys rejected); errors give file, line and column.
util::Result<Json> parse_json(std::string_view text, const std::string& file);

// `string "4k"`, `number 1.5`, `boolean true`, `null`, `array`, `object`.
std::string describe(const Json& j);
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");
// "a.b" (or "b" when path is empty) and "a[3]".
std::string member_path(const std::string& path, std::string_view key);
std::string index_path(const std::string& path, size_t i);

// [a-z][a-z0-9_]*
bool is_op_name(std::string_view s);
// [A-Za-z_][A-Za-z0-9_]*
bool is_c_identifier(std::string_view s);
// [A-Za-z0-9_.-]+
bool is_label_name(std::string_view s);

class Reader {
 public:
  explicit Reader(std::string file) : m_file(std::move(file)) {}

  // Records the error (if it is the first) and returns false.
  bool fail(const std::string& path, std::string message);
  bool failed() const { return m_error.has_value(); }
  const util::Error& error() const { return *m_error; }
  const std::string& file() const { return m_file; }

  // `j` is an object whose keys are all in `allowed`.
  bool object(const Json& j, const std::string& path, std::initializer_list<std::string_view> allowed);
  // `j` is an object (any keys).
  bool any_object(const Json& j, const std::string& path);
  bool array(const Json& j, const std::string& path, bool non_empty);
  // obj[key], or nullptr with "missing required field".
  const Json* required(const Json& obj, const std::string& path, std::string_view key);
  static const Json* optional(const Json& obj, std::string_view key);

  bool string(const Json& j, const std::string& path, std::string& out);
  bool non_empty_string(const Json& j, const std::string& path, std::string& out);
  bool op_name(const Json& j, const std::string& path, std::string& out);
  bool c_identifier(const Json& j, const std::string& path, std::string& out);
  bool label_name(const Json& j, const std::string& path, std::string& out);
  bool integer(const Json& j, const std::string& path, int64_t& out);
  bool number(const Json& j, const std::string& path, double& out);  // finite
  bool boolean(const Json& j, const std::string& path, bool& out);

 private:
  std::string m_file;
  std::optional<util::Error> m_error;
};

}  // namespace kwb::spec::detail
