#include "spec/json_reader.hpp"

#include <cmath>
#include <functional>
#include <fmt/format.h>
#include <limits>
#include <set>

namespace kwb::spec::detail {

namespace {

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_alpha(char c) { return is_lower(c) || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "line 3, column 7" from nlohmann's 1-based byte position of the last character read.
std::string line_col(std::string_view text, size_t byte) {
  size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < end; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return fmt::format("line {}, column {}", line, end - line_start + 1);
}

// nlohmann's message without "[json.exception...] parse error at line L, column C: ".
std::string strip_nlohmann_prefix(const std::string& what) {
  std::string_view s = what;
  if (auto p = s.find("] "); p != std::string_view::npos && s.starts_with("[json.exception")) s.remove_prefix(p + 2);
  if (auto c = s.find(", column "); c != std::string_view::npos)
    if (auto colon = s.find(": ", c); colon != std::string_view::npos) s.remove_prefix(colon + 2);
  return std::string(s);
}

// Rejects duplicate keys, which nlohmann would otherwise resolve silently (last one wins).
class DuplicateKeyCheck {
 public:
  std::optional<std::string> duplicate_path;

  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, Json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        m_frames.push_back(Frame{event == E::array_start, 0, {}, {}, segment()});
        break;
      case E::key: {
        Frame& f = m_frames.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second && !duplicate_path) duplicate_path = path() + "." + f.key;
        break;
      }
      case E::object_end:
      case E::array_end:
        m_frames.pop_back();
        advance();
        break;
      case E::value: advance(); break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array;
    size_t index;
    std::set<std::string> keys;
    std::string key;
    std::string segment;  // how the parent names this frame
  };
  std::vector<Frame> m_frames;

  std::string segment() const {
    if (m_frames.empty()) return "";
    const Frame& p = m_frames.back();
    return p.array ? fmt::format("[{}]", p.index) : "." + p.key;
  }
  std::string path() const {
    std::string p;
    for (const auto& f : m_frames) p += f.segment;
    return p;
  }
  void advance() {
    if (!m_frames.empty() && m_frames.back().array) ++m_frames.back().index;
  }
};

}  // namespace

util::Result<Json> parse_json(std::string_view text, const std::string& file) {
  DuplicateKeyCheck dup;
  try {
    Json j = Json::parse(text, std::ref(dup), /*allow_exceptions=*/true, /*ignore_comments=*/true);
    if (dup.duplicate_path) {
      std::string path = *dup.duplicate_path;
      if (path.starts_with(".")) path.erase(0, 1);
      return util::fail(file + ": " + path, "duplicate key (a later value would silently replace the first)");
    }
    return j;
  } catch (const nlohmann::json::parse_error& e) {
    return util::fail(file + ": " + line_col(text, e.byte), "invalid JSON: " + strip_nlohmann_prefix(e.what()));
  } catch (const nlohmann::json::exception& e) {
    return util::fail(file, "invalid JSON: " + strip_nlohmann_prefix(e.what()));
  }
}

std::string describe(const Json& j) {
  switch (j.type()) {
    case Json::value_t::string: return "string " + j.dump();
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "number " + j.dump();
    case Json::value_t::boolean: return "boolean " + j.dump();
    case Json::value_t::null: return "null";
    case Json::value_t::array: return "array";
    case Json::value_t::object: return "object";
    default: return "unsupported value";
  }
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string member_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string index_path(const std::string& path, size_t i) { return fmt::format("{}[{}]", path, i); }

bool is_op_name(std::string_view s) {
  if (s.empty() || !is_lower(s[0])) return false;
  for (char c : s)
    if (!is_lower(c) && !is_digit(c) && c != '_') return false;
  return true;
}

bool is_c_identifier(std::string_view s) {
  if (s.empty() || !(is_alpha(s[0]) || s[0] == '_')) return false;
  for (char c : s)
    if (!is_alpha(c) && !is_digit(c) && c != '_') return false;
  return true;
}

bool is_label_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_alpha(c) && !is_digit(c) && c != '_' && c != '.' && c != '-') return false;
  return true;
}

bool Reader::fail(const std::string& path, std::string message) {
  if (!m_error) m_error = util::Error{path.empty() ? m_file : m_file + ": " + path, std::move(message)};
  return false;
}

bool Reader::any_object(const Json& j, const std::string& path) {
  if (j.is_object()) return true;
  return fail(path, "expected object, got " + describe(j));
}

bool Reader::object(const Json& j, const std::string& path, std::initializer_list<std::string_view> allowed) {
  if (!any_object(j, path)) return false;
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (known) continue;
    std::vector<std::string> names(allowed.begin(), allowed.end());
    return fail(member_path(path, key), fmt::format("unknown field '{}' (expected one of: {})", key, join(names)));
  }
  return true;
}

bool Reader::array(const Json& j, const std::string& path, bool non_empty) {
  if (!j.is_array()) return fail(path, "expected array, got " + describe(j));
  if (non_empty && j.empty()) return fail(path, "must not be empty");
  return true;
}

const Json* Reader::required(const Json& obj, const std::string& path, std::string_view key) {
  if (const Json* v = optional(obj, key)) return v;
  fail(member_path(path, key), "missing required field");
  return nullptr;
}

const Json* Reader::optional(const Json& obj, std::string_view key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

bool Reader::string(const Json& j, const std::string& path, std::string& out) {
  if (!j.is_string()) return fail(path, "expected string, got " + describe(j));
  out = j.get<std::string>();
  return true;
}

bool Reader::non_empty_string(const Json& j, const std::string& path, std::string& out) {
  if (!string(j, path, out)) return false;
  return out.empty() ? fail(path, "must not be empty") : true;
}

bool Reader::op_name(const Json& j, const std::string& path, std::string& out) {
  if (!string(j, path, out)) return false;
  return is_op_name(out) ? true : fail(path, fmt::format("expected a name of the form [a-z][a-z0-9_]*, got {}", j.dump()));
}

bool Reader::c_identifier(const Json& j, const std::string& path, std::string& out) {
  if (!string(j, path, out)) return false;
  return is_c_identifier(out) ? true
                              : fail(path, fmt::format("expected a C identifier ([A-Za-z_][A-Za-z0-9_]*), got {}", j.dump()));
}

bool Reader::label_name(const Json& j, const std::string& path, std::string& out) {
  if (!string(j, path, out)) return false;
  return is_label_name(out) ? true : fail(path, fmt::format("expected a name of the form [A-Za-z0-9_.-]+, got {}", j.dump()));
}

bool Reader::integer(const Json& j, const std::string& path, int64_t& out) {
  if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
    return fail(path, "integer " + j.dump() + " does not fit in a signed 64-bit integer");
  if (!j.is_number_integer()) return fail(path, "expected integer, got " + describe(j));
  out = j.get<int64_t>();
  return true;
}

bool Reader::number(const Json& j, const std::string& path, double& out) {
  if (!j.is_number()) return fail(path, "expected number, got " + describe(j));
  out = j.get<double>();
  return std::isfinite(out) ? true : fail(path, "expected a finite number, got " + j.dump());
}

bool Reader::boolean(const Json& j, const std::string& path, bool& out) {
  if (!j.is_boolean()) return fail(path, "expected boolean, got " + describe(j));
  out = j.get<bool>();
  return true;
}

}  // namespace kwb::spec::detail
