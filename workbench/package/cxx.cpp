#include "package/cxx.hpp"

#include <algorithm>
#include <iterator>
#include <cctype>

#include <fmt/format.h>

#include "spec/expr.hpp"

namespace kwb::package {

namespace {

constexpr std::string_view k_keywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
    // names the generated code itself uses next to the spec's identifiers
    "I", "rt", "stream", "kwb", "kwbx", "int64_t", "size_t", "std"};

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string_view cxx_type(core::DType t) {
  switch (t) {
    case core::DType::f32: return "float";
    case core::DType::f64: return "double";
    case core::DType::bf16: return "uint16_t";
    case core::DType::f16: return "uint16_t";
    case core::DType::i32: return "int32_t";
    case core::DType::u32: return "uint32_t";
    case core::DType::i64: return "int64_t";
    case core::DType::u8: return "uint8_t";
    case core::DType::f8e4m3: return "uint8_t";
    case core::DType::f8e5m2: return "uint8_t";
    case core::DType::i8: return "int8_t";
  }
  return "void";
}

std::string cxx_name(std::string_view name) {
  std::string s(name);
  if (std::find(std::begin(k_keywords), std::end(k_keywords), name) != std::end(k_keywords) || s.starts_with("kwb_"))
    s += '_';
  return s;
}

std::string function_name(std::string_view op, std::string_view variant) {
  std::string s = std::string(op) + "_" + std::string(variant);
  for (char& c : s)
    if (!is_name_char(c)) c = '_';
  return s;
}

std::string cxx_string(std::string_view text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    if (c == '\n') {
      s += "\\n";
      continue;
    }
    s += c;
  }
  return s + "\"";
}

util::Result<std::string> cxx_expr(std::string_view text, const std::map<std::string, std::string>& names) {
  auto parsed = spec::Expr::parse(text);
  const std::string where = fmt::format("\"{}\"", text);  // (not "\"" + ...: a false -Wrestrict in g++ 12)
  if (!parsed) return util::fail(where, parsed.error().message);
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      std::string digits(text.substr(i, j - i));
      digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));  // no octal literals
      out += "I(" + digits + "LL)";
      i = j;
      continue;
    }
    if (is_name_start(c)) {
      size_t j = i;
      while (j < text.size() && is_name_char(text[j])) ++j;
      std::string name(text.substr(i, j - i));
      size_t k = j;
      while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
      if (k < text.size() && text[k] == '(') {  // a function: the parser accepted only ceil_div, min, max
        out += "rt::" + name;
      } else {
        auto it = names.find(name);
        if (it == names.end()) return util::fail(where, "unknown name '" + name + "'");
        out += "I(" + it->second + ")";
      }
      i = j;
      continue;
    }
    if (c == ',') out += ", ";
    else if (c == '(' || c == ')' || (c == '-' && (out.empty() || out.back() == '(' || out.back() == ' '))) out += c;
    else out += std::string(" ") + c + " ";
    ++i;
  }
  return out;
}

std::vector<std::string> include_lines(std::string_view source) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < source.size()) {
    size_t end = source.find('\n', start);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = source.substr(start, end - start);
    const size_t hash = line.find_first_not_of(" \t");
    if (hash != std::string_view::npos && line[hash] == '#') {
      const size_t word = line.find_first_not_of(" \t", hash + 1);
      const size_t path = word == std::string_view::npos ? word : line.find_first_not_of(" \t", word + 7);
      if (path != std::string_view::npos && line.substr(word, 7) == "include" && line[path] == '<')
        out.emplace_back(line.substr(hash));
    }
    start = end + 1;
  }
  return out;
}

}  // namespace kwb::package
