// precision-downcast (warning): in a variant with f32 outputs, accumulating in half precision.
//   acc += x / acc = acc + x / acc = __hadd(acc, x) in a loop, with acc of a half type; or
//   any accumulation in a loop whose right-hand side converts float to a half type.
#include <fmt/format.h>

#include <optional>

#include "analysis/checks.hpp"

namespace kwb::analysis {

namespace {

bool f32_variant(const Request& req) {
  for (const auto& t : req.spec.tensors) {
    if (t.role == core::Role::in) continue;
    auto it = req.variant.dtypes.find(t.name);
    if (it != req.variant.dtypes.end() && it->second == core::DType::f32) return true;
  }
  return false;
}

class PrecisionCheck {
 public:
  explicit PrecisionCheck(const Context& ctx) : m_ctx(ctx), m_ast(ctx.ast), m_cx(ctx.ast.cx) {}

  void run() {
    if (!f32_variant(m_ctx.req)) return;
    for (size_t i = 0; i < m_ast.nodes.size(); ++i) {
      int lhs = -1, rhs = -1;
      if (!accumulation(int(i), lhs, rhs) || !in_loop(int(i))) continue;
      Position at = m_ast.position(m_ast.nodes[i].cursor);
      CXType acc = m_cx.getCursorType(m_ast.nodes[lhs].cursor);
      if (m_ast.is_half_like(acc)) {
        m_ctx.out.add("precision-downcast", "warning", at,
                      fmt::format("accumulation into a {} in a loop of an f32 variant: rounding to half precision at "
                                  "every step loses accuracy; accumulate in float",
                                  m_ast.canonical_name(acc)));
      } else if (int conv = downcast_in(rhs); conv >= 0) {
        m_ctx.out.add("precision-downcast", "warning", at,
                      fmt::format("a float to {} conversion feeds this accumulation in an f32 variant: inputs are "
                                  "rounded to half precision before they are summed",
                                  m_ast.canonical_name(m_cx.getCursorType(m_ast.nodes[conv].cursor))));
      }
    }
  }

 private:
  // The variable an lvalue designates: v, v[i], v.x, (v).
  std::optional<CXCursor> referenced_var(int i) const {
    for (int guard = 0; guard < 8 && i >= 0; ++guard) {
      if (m_ast.nodes[i].kind == CXCursor_DeclRefExpr) return m_ast.referenced(i);
      if (m_ast.nodes[i].children.empty()) break;
      i = m_ast.nodes[i].children[0];
    }
    return std::nullopt;
  }

  bool mentions(int subtree, CXCursor var) const {
    if (m_ast.nodes[subtree].kind == CXCursor_DeclRefExpr && m_cx.equalCursors(m_ast.referenced(subtree), var))
      return true;
    for (int c : m_ast.nodes[subtree].children)
      if (mentions(c, var)) return true;
    return false;
  }

  // acc += e, acc -= e (built-in or overloaded), acc = f(acc, e) (built-in or overloaded =)
  bool accumulation(int i, int& lhs, int& rhs) const {
    const Node& n = m_ast.nodes[i];
    if (n.children.size() < 2) return false;
    lhs = n.children.front();
    rhs = n.children.back();
    if (n.kind == CXCursor_CompoundAssignOperator) {
      auto op = m_cx.getCursorBinaryOperatorKind(n.cursor);
      return op == CXBinaryOperator_AddAssign || op == CXBinaryOperator_SubAssign;
    }
    bool assign = false;
    if (n.kind == CXCursor_CallExpr) {
      std::string name = m_ast.spelling(n.cursor);
      if (name == "operator+=" || name == "operator-=") return true;
      assign = name == "operator=";
    } else if (n.kind == CXCursor_BinaryOperator) {
      assign = m_cx.getCursorBinaryOperatorKind(n.cursor) == CXBinaryOperator_Assign;
    }
    if (!assign) return false;
    auto var = referenced_var(lhs);
    return var && m_cx.getCursorKind(*var) == CXCursor_VarDecl && mentions(rhs, *var);
  }

  bool in_loop(int i) const {
    for (int p = m_ast.nodes[i].parent; p >= 0; p = m_ast.nodes[p].parent) {
      CXCursorKind k = m_ast.nodes[p].kind;
      if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt || k == CXCursor_CXXForRangeStmt)
        return true;
      if (Ast::is_function_kind(k)) return false;
    }
    return false;
  }

  bool is_float(CXType t) const {
    CXType c = m_ast.canonical(t);
    return c.kind == CXType_Float || c.kind == CXType_Double;
  }

  // A node of half type converted from float/double (a cast, a conversion call such as
  // __float2half, or a constructor); -1 when there is none.
  int downcast_in(int subtree) const {
    const Node& n = m_ast.nodes[subtree];
    if (m_ast.is_half_like(m_cx.getCursorType(n.cursor))) {
      bool conversion = n.kind == CXCursor_UnexposedExpr || n.kind == CXCursor_CStyleCastExpr ||
                        n.kind == CXCursor_CXXStaticCastExpr || n.kind == CXCursor_CXXFunctionalCastExpr ||
                        n.kind == CXCursor_CallExpr;
      if (conversion)
        for (int c : n.children)
          if (is_float(m_cx.getCursorType(m_ast.nodes[c].cursor))) return subtree;
    }
    for (int c : n.children)
      if (int found = downcast_in(c); found >= 0) return found;
    return -1;
  }

  const Context& m_ctx;
  const Ast& m_ast;
  const Libclang& m_cx;
};

}  // namespace

void check_precision(const Context& ctx) { PrecisionCheck(ctx).run(); }

}  // namespace kwb::analysis
