#include "analysis/ast.hpp"

namespace kwb::analysis {

namespace {

struct Collect {
  Ast* ast;
  int parent;
};

CXChildVisitResult collect(CXCursor c, CXCursor, CXClientData data) {
  auto* ctx = static_cast<Collect*>(data);
  Ast& ast = *ctx->ast;
  // Top level: only what the candidate wrote (the PCH's declarations are excluded by the index;
  // headers parsed per candidate are skipped here).
  if (ctx->parent < 0 && !ast.in_main_file(c)) return CXChildVisit_Continue;
  int index = int(ast.nodes.size());
  ast.nodes.push_back(Node{c, ast.cx.getCursorKind(c), ctx->parent, {}});
  if (ctx->parent >= 0) ast.nodes[ctx->parent].children.push_back(index);
  Collect sub{ctx->ast, index};
  ast.cx.visitChildren(c, collect, &sub);
  return CXChildVisit_Continue;
}

}  // namespace

Ast::Ast(const Libclang& lib, CXTranslationUnit unit, std::string main_file, std::string display_name,
         size_t source_size)
    : cx(lib), tu(unit), m_main_file(std::move(main_file)), m_display(std::move(display_name)),
      m_size(source_size) {
  nodes.reserve(4096);
  Collect top{this, -1};
  cx.visitChildren(cx.getTranslationUnitCursor(tu), collect, &top);
}

Position Ast::position(CXSourceLocation loc) const {
  CXFile file = nullptr;
  unsigned line = 0, col = 0;
  // The file location ignores #line directives (which a candidate could use to mislead).
  cx.getFileLocation(loc, &file, &line, &col, nullptr);
  Position p;
  p.line = int(line);
  p.col = int(col);
  if (file) {
    std::string name = cx.str(cx.getFileName(file));
    p.file = name == m_main_file ? m_display : name;
  } else {
    p.file = m_display;
  }
  return p;
}

std::string Ast::qualified_name(CXCursor decl) const {
  std::string name = spelling(decl);
  CXCursor p = cx.getCursorSemanticParent(decl);
  for (int guard = 0; guard < 64 && !is_null(p); ++guard) {
    CXCursorKind k = cx.getCursorKind(p);
    if (k == CXCursor_TranslationUnit || (k >= CXCursor_FirstInvalid && k <= CXCursor_LastInvalid)) break;
    bool scope = k == CXCursor_Namespace || k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
                 k == CXCursor_UnionDecl || k == CXCursor_ClassTemplate ||
                 k == CXCursor_ClassTemplatePartialSpecialization || k == CXCursor_EnumDecl;
    if (scope) {
      if (k == CXCursor_Namespace && cx.Cursor_isInlineNamespace(p)) {
        // std::__cxx11, std::chrono::_V2: not part of the name users write
      } else if (k == CXCursor_Namespace && cx.Cursor_isAnonymous(p)) {
        name = "(anonymous)::" + name;
      } else {
        name = spelling(p) + "::" + name;
      }
    } else if (is_function_kind(k)) {
      name = spelling(p) + "()::" + name;  // a local declaration: never a library function
    }
    p = cx.getCursorSemanticParent(p);
  }
  return name;
}

namespace {
struct AttrSearch {
  const Libclang* cx;
  CXCursorKind kind;
  bool found = false;
};
CXChildVisitResult find_attr(CXCursor c, CXCursor, CXClientData data) {
  auto* s = static_cast<AttrSearch*>(data);
  if (s->cx->getCursorKind(c) == s->kind) {
    s->found = true;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}
}  // namespace

bool Ast::has_attr(CXCursor decl, CXCursorKind attr) const {
  AttrSearch s{&cx, attr};
  cx.visitChildren(decl, find_attr, &s);
  return s.found;
}

std::vector<Token> Ast::tokens(CXSourceRange r) const {
  CXToken* toks = nullptr;
  unsigned n = 0;
  cx.tokenize(tu, r, &toks, &n);
  std::vector<Token> out;
  out.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    Token t{cx.getTokenKind(toks[i]), cx.str(cx.getTokenSpelling(tu, toks[i]))};
    unsigned line = 0, col = 0;
    cx.getFileLocation(cx.getTokenLocation(tu, toks[i]), nullptr, &line, &col, nullptr);
    t.line = int(line);
    t.col = int(col);
    out.push_back(std::move(t));
  }
  if (toks) cx.disposeTokens(tu, toks, n);
  return out;
}

std::vector<Token> Ast::tokens(CXCursor c) const { return tokens(cx.getCursorExtent(c)); }

std::vector<Token> Ast::file_tokens() const {
  CXFile file = cx.getFile(tu, m_main_file.c_str());
  if (!file) return {};
  CXSourceLocation begin = cx.getLocationForOffset(tu, file, 0);
  CXSourceLocation end = cx.getLocationForOffset(tu, file, unsigned(m_size));
  return tokens(cx.getRange(begin, end));
}

bool Ast::is_function_kind(CXCursorKind k) {
  return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
         k == CXCursor_Destructor || k == CXCursor_ConversionFunction || k == CXCursor_FunctionTemplate ||
         k == CXCursor_LambdaExpr;
}

int Ast::enclosing_function(int i) const {
  for (int p = nodes[i].parent; p >= 0; p = nodes[p].parent)
    if (is_function_kind(nodes[p].kind)) return p;
  return -1;
}

int Ast::child_index(int c) const {
  int p = nodes[c].parent;
  if (p < 0) return -1;
  const auto& ch = nodes[p].children;
  for (size_t k = 0; k < ch.size(); ++k)
    if (ch[k] == c) return int(k);
  return -1;
}

CXType Ast::strip_arrays(CXType t) const {
  for (int guard = 0; guard < 16; ++guard) {
    CXType e = cx.getArrayElementType(t);
    if (e.kind == CXType_Invalid) break;
    t = e;
  }
  return t;
}

std::string Ast::canonical_name(CXType t) const {
  return type_spelling(cx.getUnqualifiedType(canonical(t)));
}

bool Ast::is_half_like(CXType t) const {
  CXType c = canonical(t);
  if (c.kind == CXType_Half || c.kind == CXType_Float16 || c.kind == CXType_BFloat16) return true;
  if (c.kind != CXType_Record) return false;
  std::string n = canonical_name(c);
  return n == "__half" || n == "__nv_bfloat16" || n == "__half2" || n == "__nv_bfloat162";
}

}  // namespace kwb::analysis
