#pragma once
// The expression language of specs and launch plans: 64-bit integers, names,
// + - * / % (C semantics, / truncates; division or modulo by zero is an error),
// unary minus, parentheses, and the functions ceil_div(a,b), min(a,b,...), max(a,b,...).
// A condition (spec shape constraints) is one comparison of two expressions,
// `a == b`, `!=`, `<`, `<=`, `>`, `>=`, which evaluates to 1 (true) or 0 (false).
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace kwb::spec {

using Env = std::map<std::string, int64_t, std::less<>>;

class Expr {
 public:
  // Parses `text`; the error's message names the column and what was expected.
  static util::Result<Expr> parse(std::string_view text);
  // Parses a condition: exactly one comparison at the top level (`cols % 8 == 0`); comparisons
  // are not allowed anywhere else, and plain expressions are not conditions.
  static util::Result<Expr> parse_condition(std::string_view text);
  // Evaluates with the given names bound; unknown names, overflow and division by zero are errors.
  util::Result<int64_t> eval(const Env& env) const;
  // The names the expression refers to.
  std::set<std::string> names() const;
  const std::string& text() const { return m_text; }

  struct Node;

 private:
  static util::Result<Expr> parse_text(std::string_view text, bool condition);
  std::string m_text;
  std::shared_ptr<const Node> m_root;
};

// Parse + evaluate in one step (for callers that evaluate an expression once).
util::Result<int64_t> evaluate(std::string_view text, const Env& env);

}  // namespace kwb::spec
