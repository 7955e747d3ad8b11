#pragma once
// A parsed candidate: the cursors written in the candidate's own file, in pre-order with their
// parents (libclang gives no parent links for expressions), plus helpers the checks share.
#include <string>
#include <string_view>
#include <vector>

#include "analysis/libclang.hpp"

namespace kwb::analysis {

struct Node {
  CXCursor cursor;
  CXCursorKind kind;
  int parent = -1;  // index in Ast::nodes; -1 for top-level cursors
  std::vector<int> children;
};

struct Position {
  std::string file;
  int line = 0, col = 0;
};

struct Token {
  CXTokenKind kind;
  std::string text;
  int line = 0, col = 0;
};

class Ast {
 public:
  Ast(const Libclang& lib, CXTranslationUnit tu, std::string main_file, std::string display_name,
      size_t source_size);

  const Libclang& cx;
  CXTranslationUnit tu;
  std::vector<Node> nodes;

  std::string spelling(CXCursor c) const { return cx.str(cx.getCursorSpelling(c)); }
  CXCursor referenced(int i) const { return cx.getCursorReferenced(nodes[i].cursor); }
  bool is_null(CXCursor c) const { return cx.Cursor_isNull(c) != 0; }
  Position position(CXSourceLocation loc) const;
  Position position(CXCursor c) const { return position(cx.getCursorLocation(c)); }
  bool in_main_file(CXCursor c) const { return cx.Location_isFromMainFile(cx.getCursorLocation(c)) != 0; }
  bool in_system_header(CXCursor c) const { return cx.Location_isInSystemHeader(cx.getCursorLocation(c)) != 0; }
  // Namespaces and classes joined by "::", inline namespaces (std::__cxx11, std::chrono::_V2) left
  // out, anonymous ones shown as "(anonymous)"; "system" for a global C function.
  std::string qualified_name(CXCursor decl) const;
  // True when `decl` carries the attribute cursor `attr` (e.g. CXCursor_CUDAGlobalAttr).
  bool has_attr(CXCursor decl, CXCursorKind attr) const;
  // Raw tokens of a cursor's extent / of the whole candidate file (also inactive #if regions).
  std::vector<Token> tokens(CXCursor c) const;
  std::vector<Token> file_tokens() const;
  // Index of the innermost enclosing function, method or lambda of node i, or -1.
  int enclosing_function(int i) const;
  // Position of child `c` among the children of its parent (-1 when top level).
  int child_index(int c) const;
  static bool is_function_kind(CXCursorKind k);

  // Canonical type helpers.
  CXType canonical(CXType t) const { return cx.getCanonicalType(t); }
  CXType strip_arrays(CXType t) const;
  std::string type_spelling(CXType t) const { return cx.str(cx.getTypeSpelling(t)); }
  // Spelling of the canonical, unqualified type ("__half", "float", "long").
  std::string canonical_name(CXType t) const;
  bool is_half_like(CXType t) const;  // _Float16, __fp16, __bf16, __half, __nv_bfloat16 (and x2)

 private:
  std::vector<Token> tokens(CXSourceRange r) const;
  std::string m_main_file, m_display;
  size_t m_size = 0;
};

}  // namespace kwb::analysis
