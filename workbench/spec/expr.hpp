#pragma once
// The expression language of specs and launch plans: 64-bit integers, names,
// + - * / % (C semantics, / truncates; division or modulo by zero is an error),
// unary minus, parentheses, and the functions ceil_div(a,b), min(a,b,...), max(a,b,...).
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
  // Evaluates with the given names bound; unknown names, overflow and division by zero are errors.
  util::Result<int64_t> eval(const Env& env) const;
  // The names the expression refers to.
  std::set<std::string> names() const;
  const std::string& text() const { return m_text; }

  struct Node;

 private:
  std::string m_text;
  std::shared_ptr<const Node> m_root;
};

// Parse + evaluate in one step (for callers that evaluate an expression once).
util::Result<int64_t> evaluate(std::string_view text, const Env& env);

}  // namespace kwb::spec
