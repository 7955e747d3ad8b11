// Recursive-descent parser and evaluator of the expression language (docs/specs.md).
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | primary
//   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
// and for conditions only:
//   condition := expr ('==' | '!=' | '<' | '<=' | '>' | '>=') expr
#include "spec/expr.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <limits>
#include <vector>

namespace kwb::spec {

struct Expr::Node {
  enum class Kind { number, name, neg, binary, call, compare };
  Kind kind = Kind::number;
  int64_t value = 0;    // number
  std::string name;     // name, call (function name)
  char op = 0;          // binary: + - * / %; compare: '=' (==) '!' (!=) '<' 'l' (<=) '>' 'g' (>=)
  std::vector<Node> args;  // neg: 1, binary: 2, call: n
};

namespace {

using Node = Expr::Node;
constexpr int k_max_depth = 100;
// Bounds the tree depth of long operator chains too (evaluation and destruction recurse).
constexpr size_t k_max_length = 1000;

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

struct FunctionInfo {
  std::string_view name;
  size_t min_args, max_args;
};
constexpr FunctionInfo k_functions[] = {
    {"ceil_div", 2, 2},
    {"min", 2, std::numeric_limits<size_t>::max()},
    {"max", 2, std::numeric_limits<size_t>::max()},
};

const FunctionInfo* find_function(std::string_view name) {
  for (const auto& f : k_functions)
    if (f.name == name) return &f;
  return nullptr;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : m_text(text) {}

  util::Result<Node> parse_all(bool condition) {
    if (m_text.size() > k_max_length)
      return util::fail("", fmt::format("expression of {} characters is longer than the limit of {}", m_text.size(),
                                        k_max_length));
    auto root = parse_expr(0);
    if (!root) return root;
    if (condition) {
      skip_space();
      const size_t at = m_pos;
      char op = accept_comparison();
      if (!op) return error_at(at, "expected a comparison (==, !=, <, <=, >, >=)");
      auto rhs = parse_expr(0);
      if (!rhs) return rhs;
      Node n;
      n.kind = Node::Kind::compare;
      n.op = op;
      n.args.push_back(std::move(*root));
      n.args.push_back(std::move(*rhs));
      root = std::move(n);
    }
    skip_space();
    if (m_pos < m_text.size()) {
      const char c = m_text[m_pos];
      if (c == '<' || c == '>' || c == '=' || c == '!')
        return error(condition ? "only one comparison per condition (list several conditions instead)"
                               : "a comparison is not allowed here (only in shape constraints)");
      return error("expected an operator or the end of the expression");
    }
    return root;
  }

 private:
  std::string_view m_text;
  size_t m_pos = 0;

  void skip_space() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
  }
  // `==` `!=` `<=` `>=` `<` `>` as the Node op codes; 0 (nothing consumed) when none is next.
  char accept_comparison() {
    skip_space();
    auto rest = m_text.substr(m_pos);
    for (auto [text, code] : {std::pair{"==", '='}, {"!=", '!'}, {"<=", 'l'}, {">=", 'g'}, {"<", '<'}, {">", '>'}}) {
      if (!rest.starts_with(text)) continue;
      m_pos += std::string_view(text).size();
      return code;
    }
    return 0;
  }
  bool accept(char c) {
    skip_space();
    if (m_pos < m_text.size() && m_text[m_pos] == c) {
      ++m_pos;
      return true;
    }
    return false;
  }
  // `"text": column N: what`, plus what was found instead when not at the end.
  std::unexpected<util::Error> error_at(size_t pos, std::string_view what) const {
    std::string msg = fmt::format("\"{}\": column {}: {}", m_text, pos + 1, what);
    if (pos < m_text.size()) {
      unsigned char c = static_cast<unsigned char>(m_text[pos]);
      if (std::isprint(c))
        msg += fmt::format(", got '{}'", char(c));
      else
        msg += fmt::format(", got byte 0x{:02x}", unsigned(c));
    }
    return util::fail("", std::move(msg));
  }
  std::unexpected<util::Error> error(std::string_view what) {
    skip_space();
    return error_at(m_pos, what);
  }

  util::Result<Node> parse_expr(int depth) {
    if (depth > k_max_depth) return error("expression nested too deeply");
    auto lhs = parse_term(depth);
    if (!lhs) return lhs;
    while (true) {
      char op = accept('+') ? '+' : accept('-') ? '-' : 0;
      if (!op) return lhs;
      auto rhs = parse_term(depth);
      if (!rhs) return rhs;
      lhs = binary(op, std::move(*lhs), std::move(*rhs));
    }
  }

  util::Result<Node> parse_term(int depth) {
    auto lhs = parse_unary(depth);
    if (!lhs) return lhs;
    while (true) {
      char op = accept('*') ? '*' : accept('/') ? '/' : accept('%') ? '%' : 0;
      if (!op) return lhs;
      auto rhs = parse_unary(depth);
      if (!rhs) return rhs;
      lhs = binary(op, std::move(*lhs), std::move(*rhs));
    }
  }

  util::Result<Node> parse_unary(int depth) {
    if (!accept('-')) return parse_primary(depth);
    if (depth + 1 > k_max_depth) return error("expression nested too deeply");
    auto operand = parse_unary(depth + 1);
    if (!operand) return operand;
    Node n;
    n.kind = Node::Kind::neg;
    n.args.push_back(std::move(*operand));
    return n;
  }

  util::Result<Node> parse_primary(int depth) {
    skip_space();
    const size_t start = m_pos;
    if (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
      int64_t v = 0;
      while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
        if (__builtin_mul_overflow(v, int64_t{10}, &v) ||
            __builtin_add_overflow(v, int64_t{m_text[m_pos] - '0'}, &v))
          return error_at(start, "number does not fit in a signed 64-bit integer");
        ++m_pos;
      }
      if (m_pos < m_text.size() && is_name_char(m_text[m_pos]))
        return error_at(m_pos, "expected an operator or the end of the expression");
      Node n;
      n.value = v;
      return n;
    }
    if (m_pos < m_text.size() && is_name_start(m_text[m_pos])) {
      while (m_pos < m_text.size() && is_name_char(m_text[m_pos])) ++m_pos;
      std::string name(m_text.substr(start, m_pos - start));
      if (!accept('(')) {
        Node n;
        n.kind = Node::Kind::name;
        n.name = std::move(name);
        return n;
      }
      return parse_call(std::move(name), start, depth);
    }
    if (accept('(')) {
      auto inner = parse_expr(depth + 1);
      if (!inner) return inner;
      if (!accept(')')) return error("expected ')'");
      return inner;
    }
    return error_at(m_pos, "expected a number, a name or '('");
  }

  // After `name(`.
  util::Result<Node> parse_call(std::string name, size_t start, int depth) {
    const FunctionInfo* f = find_function(name);
    if (!f)
      return util::fail("", fmt::format("\"{}\": column {}: unknown function '{}' (known: ceil_div, min, max)",
                                        m_text, start + 1, name));
    Node n;
    n.kind = Node::Kind::call;
    n.name = std::move(name);
    while (true) {
      auto arg = parse_expr(depth + 1);
      if (!arg) return arg;
      n.args.push_back(std::move(*arg));
      if (accept(')')) break;
      if (!accept(',')) return error("expected ',' or ')'");
    }
    if (n.args.size() < f->min_args || n.args.size() > f->max_args) {
      std::string want = f->min_args == f->max_args ? fmt::format("exactly {}", f->min_args)
                                                     : fmt::format("at least {}", f->min_args);
      return util::fail("", fmt::format("\"{}\": column {}: {} takes {} arguments, got {}", m_text,
                                        start + 1, n.name, want, n.args.size()));
    }
    return n;
  }

  static Node binary(char op, Node lhs, Node rhs) {
    Node n;
    n.kind = Node::Kind::binary;
    n.op = op;
    n.args.push_back(std::move(lhs));
    n.args.push_back(std::move(rhs));
    return n;
  }
};

class Evaluator {
 public:
  Evaluator(std::string_view text, const Env& env) : m_text(text), m_env(env) {}

  util::Result<int64_t> eval(const Node& n) const {
    switch (n.kind) {
      case Node::Kind::number: return n.value;
      case Node::Kind::name: {
        auto it = m_env.find(n.name);
        if (it != m_env.end()) return it->second;
        std::string known;
        for (const auto& [k, v] : m_env) known += (known.empty() ? "" : ", ") + k;
        return error(fmt::format("unknown name '{}' (known: {})", n.name, known.empty() ? "none" : known));
      }
      case Node::Kind::neg: {
        auto v = eval(n.args[0]);
        if (!v) return v;
        int64_t r;
        if (__builtin_sub_overflow(int64_t{0}, *v, &r)) return error(fmt::format("overflow in -({})", *v));
        return r;
      }
      case Node::Kind::binary: {
        auto a = eval(n.args[0]);
        if (!a) return a;
        auto b = eval(n.args[1]);
        if (!b) return b;
        return apply(n.op, *a, *b);
      }
      case Node::Kind::call: return call(n);
      case Node::Kind::compare: {
        auto a = eval(n.args[0]);
        if (!a) return a;
        auto b = eval(n.args[1]);
        if (!b) return b;
        return int64_t{compare(n.op, *a, *b)};
      }
    }
    return error("internal error: bad node");
  }

 private:
  std::string_view m_text;
  const Env& m_env;

  std::unexpected<util::Error> error(std::string what) const {
    return util::fail("", fmt::format("\"{}\": {}", m_text, what));
  }

  util::Result<int64_t> apply(char op, int64_t a, int64_t b) const {
    int64_t r = 0;
    bool overflow = false;
    switch (op) {
      case '+': overflow = __builtin_add_overflow(a, b, &r); break;
      case '-': overflow = __builtin_sub_overflow(a, b, &r); break;
      case '*': overflow = __builtin_mul_overflow(a, b, &r); break;
      case '/':
      case '%':
        if (b == 0) return error(fmt::format("division by zero in {} {} {}", a, op, b));
        if (b == -1) {  // INT64_MIN / -1 overflows; x % -1 is 0
          if (op == '%') return int64_t{0};
          overflow = __builtin_sub_overflow(int64_t{0}, a, &r);
        } else {
          r = op == '/' ? a / b : a % b;
        }
        break;
    }
    if (overflow) return error(fmt::format("overflow in {} {} {} (result does not fit in 64 bits)", a, op, b));
    return r;
  }

  static bool compare(char op, int64_t a, int64_t b) {
    switch (op) {
      case '=': return a == b;
      case '!': return a != b;
      case '<': return a < b;
      case 'l': return a <= b;
      case '>': return a > b;
      case 'g': return a >= b;
    }
    return false;
  }

  util::Result<int64_t> call(const Node& n) const {
    std::vector<int64_t> v;
    for (const auto& arg : n.args) {
      auto x = eval(arg);
      if (!x) return x;
      v.push_back(*x);
    }
    if (n.name == "ceil_div") {
      if (v[1] <= 0) return error(fmt::format("ceil_div({}, {}): the divisor must be > 0", v[0], v[1]));
      return v[0] / v[1] + (v[0] % v[1] > 0 ? 1 : 0);
    }
    int64_t r = v[0];
    for (int64_t x : v) r = n.name == "min" ? std::min(r, x) : std::max(r, x);
    return r;
  }
};

void collect_names(const Node& n, std::set<std::string>& out) {
  if (n.kind == Node::Kind::name) out.insert(n.name);
  for (const auto& a : n.args) collect_names(a, out);
}

}  // namespace

util::Result<Expr> Expr::parse_text(std::string_view text, bool condition) {
  Parser p(text);
  auto root = p.parse_all(condition);
  if (!root) return std::unexpected(root.error());
  Expr e;
  e.m_text = std::string(text);
  e.m_root = std::make_shared<const Node>(std::move(*root));
  return e;
}

util::Result<Expr> Expr::parse(std::string_view text) { return parse_text(text, /*condition=*/false); }

util::Result<Expr> Expr::parse_condition(std::string_view text) { return parse_text(text, /*condition=*/true); }

util::Result<int64_t> Expr::eval(const Env& env) const {
  if (!m_root) return util::fail("", "empty expression (not parsed)");
  return Evaluator(m_text, env).eval(*m_root);
}

std::set<std::string> Expr::names() const {
  std::set<std::string> out;
  if (m_root) collect_names(*m_root, out);
  return out;
}

util::Result<int64_t> evaluate(std::string_view text, const Env& env) {
  auto e = Expr::parse(text);
  if (!e) return std::unexpected(e.error());
  return e->eval(env);
}

}  // namespace kwb::spec
