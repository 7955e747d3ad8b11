// inline-asm: assembly outside the PTX allow-list; symbol-alias: asm labels and alias attributes.
#include <fmt/format.h>

#include <cctype>
#include <set>
#include <string_view>

#include "analysis/checks.hpp"

namespace kwb::analysis {

namespace {

bool is_asm_keyword(std::string_view t) { return t == "asm" || t == "__asm__" || t == "__asm"; }

// Decodes one C string literal token ("...", u8"...", L"...", R"d(...)d").
std::string decode_literal(std::string_view tok) {
  size_t q = tok.find('"');
  if (q == std::string_view::npos) return {};
  bool raw = q > 0 && tok[q - 1] == 'R';
  std::string_view body = tok.substr(q + 1);
  if (body.empty()) return {};
  body.remove_suffix(1);  // closing quote
  if (raw) {
    size_t open = body.find('(');
    size_t close = body.rfind(')');
    return open == std::string_view::npos || close == std::string_view::npos || close < open
               ? std::string()
               : std::string(body.substr(open + 1, close - open - 1));
  }
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    char c = body[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case 'x': {
        int v = 0;
        while (i + 1 < body.size() && std::isxdigit(static_cast<unsigned char>(body[i + 1])))
          v = v * 16 + std::stoi(std::string(1, body[++i]), nullptr, 16);
        out += char(v);
        break;
      }
      default: out += c;  // \\ \" \' and the rest
    }
  }
  return out;
}

// PTX instructions a kernel may write by hand (their base name, before the first '.').
const std::set<std::string, std::less<>> k_ptx_allowed = {
    "mma", "wgmma", "ldmatrix", "stmatrix", "movmatrix", "cp",  "ld",   "ldu",  "st",   "mov", "shfl",
    "bar", "barrier", "fence",  "membar",   "mbarrier",  "cvt", "cvta", "prmt", "setp", "selp",
    // L2 cache policies: the compiler reports their use and such kernels are timed with
    // persisting lines reset before every sample (docs/cuda.md "Persisting L2 lines").
    "createpolicy"};

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// Empty when every instruction of the PTX template is allowed; else the offending instruction.
std::string ptx_violation(const std::string& raw) {
  // ptxas reads \r, \f and \v as blanks; the parse below splits on them too, but a template has no
  // use for them, so they are refused outright.
  for (char ch : raw)
    if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
      return "a control character (only spaces, tabs and newlines may separate PTX tokens)";
  if (raw.find("globaltimer") != std::string::npos || raw.find("%clock") != std::string::npos)
    return "a clock register (%clock/%globaltimer): a kernel must not observe time";
  std::string text;  // the template without /* */ comments (each replaced by a blank, as ptxas reads it)
  for (size_t i = 0; i < raw.size();) {
    if (raw.compare(i, 2, "/*") == 0) {
      size_t end = raw.find("*/", i + 2);
      text += ' ';
      i = end == std::string::npos ? raw.size() : end + 2;
    } else {
      text += raw[i++];
    }
  }
  auto blank = [](char ch) { return std::isspace(static_cast<unsigned char>(ch)) != 0; };
  auto ident = [](char ch, bool first) {
    unsigned char c = static_cast<unsigned char>(ch);
    return std::isalpha(c) || ch == '_' || ch == '$' || (first ? ch == '%' : std::isdigit(c) != 0);
  };
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(";\n", start);
    if (end == std::string::npos) end = text.size();
    std::string stmt = text.substr(start, end - start);
    start = end + 1;
    if (auto c = stmt.find("//"); c != std::string::npos) stmt.resize(c);
    stmt = trim(stmt);
    while (!stmt.empty() && (stmt.front() == '{' || stmt.front() == '}')) stmt = trim(stmt.substr(1));
    while (!stmt.empty() && (stmt.back() == '{' || stmt.back() == '}')) stmt = trim(stmt.substr(0, stmt.size() - 1));
    // Labels ("name:", "name :", several in a row) come before the opcode; the "::" of a qualifier
    // such as .L2::cache_hint is part of the opcode.
    for (bool more = true; more && !stmt.empty();) {
      more = false;
      size_t k = 0;
      while (k < stmt.size() && ident(stmt[k], k == 0)) ++k;
      size_t colon = k;
      while (colon < stmt.size() && blank(stmt[colon])) ++colon;
      if (k > 0 && colon < stmt.size() && stmt[colon] == ':' && (colon + 1 == stmt.size() || stmt[colon + 1] != ':')) {
        stmt = trim(stmt.substr(colon + 1));
        more = true;
      }
    }
    // A guard predicate "@p" / "@!p" too.
    if (!stmt.empty() && stmt[0] == '@') {
      size_t sp = 0;
      while (sp < stmt.size() && !blank(stmt[sp])) ++sp;
      stmt = trim(stmt.substr(sp));
    }
    if (stmt.empty()) continue;
    size_t op_end = 0;
    while (op_end < stmt.size() && !blank(stmt[op_end])) ++op_end;
    std::string opcode = stmt.substr(0, op_end);
    if (opcode[0] == '.') {  // register declarations
      if (opcode == ".reg" || opcode == ".pred") continue;
      return "the directive '" + opcode + "'";
    }
    std::string base = opcode.substr(0, opcode.find('.'));
    if (!k_ptx_allowed.contains(base)) return "the instruction '" + opcode + "'";
  }
  return {};
}

class AsmCheck {
 public:
  explicit AsmCheck(const Context& ctx) : m_ctx(ctx), m_ast(ctx.ast) {}

  void run() {
    for (size_t i = 0; i < m_ast.nodes.size(); ++i) {
      const Node& n = m_ast.nodes[i];
      switch (n.kind) {
        case CXCursor_GCCAsmStmt:
        case CXCursor_MSAsmStmt: check_statement(int(i)); break;
        case CXCursor_UnexposedDecl:
          if (n.parent < 0 || m_ast.nodes[n.parent].kind == CXCursor_Namespace ||
              m_ast.nodes[n.parent].kind == CXCursor_LinkageSpec) {
            auto toks = m_ast.tokens(n.cursor);
            if (!toks.empty() && is_asm_keyword(toks[0].text))
              m_ctx.out.add("inline-asm", "error", m_ast.position(n.cursor),
                            "file-scope asm is not allowed: it can define arbitrary code and data (.incbin)");
          }
          break;
        case CXCursor_AsmLabelAttr: {
          std::string decl = n.parent >= 0 ? m_ast.spelling(m_ast.nodes[n.parent].cursor) : "?";
          m_ctx.out.add("symbol-alias", "error", m_ast.position(n.cursor),
                        fmt::format("asm label binds '{}' to the symbol '{}': name functions and variables by "
                                    "their own names",
                                    decl, m_ast.spelling(n.cursor)));
          break;
        }
        case CXCursor_UnexposedAttr: check_attribute(int(i)); break;
        default: break;
      }
    }
  }

 private:
  bool in_device_code(int i) const {
    for (int f = m_ast.enclosing_function(i); f >= 0; f = m_ast.enclosing_function(f)) {
      CXCursor c = m_ast.nodes[f].cursor;
      if (m_ast.has_attr(c, CXCursor_CUDADeviceAttr) || m_ast.has_attr(c, CXCursor_CUDAGlobalAttr)) return true;
    }
    return false;
  }

  void check_statement(int i) {
    const Node& n = m_ast.nodes[i];
    Position at = m_ast.position(n.cursor);
    auto toks = m_ast.tokens(n.cursor);
    // asm [volatile|inline|goto]* ( "template" "..." [: ...] )
    size_t k = 0;
    while (k < toks.size() && toks[k].text != "(") ++k;
    std::string text;
    bool plain = k < toks.size();
    for (++k; k < toks.size() && toks[k].text != ":" && toks[k].text != "::" && toks[k].text != ")"; ++k) {
      if (toks[k].kind != CXToken_Literal || toks[k].text.find('"') == std::string::npos) {
        plain = false;
        break;
      }
      text += decode_literal(toks[k].text);
    }
    if (!plain) {
      m_ctx.out.add("inline-asm", "error", at,
                    "inline asm whose template is not a plain string literal cannot be checked; write the "
                    "instructions as a string literal");
      return;
    }
    if (trim(text).empty()) return;  // a compiler barrier: asm volatile("" ::: "memory")
    if (!m_ctx.cuda || !in_device_code(i)) {
      m_ctx.out.add("inline-asm", "error", at,
                    "inline assembly in host or CPU code is not allowed (it can issue system calls); use "
                    "intrinsics such as <immintrin.h>");
      return;
    }
    std::string bad = ptx_violation(text);
    if (!bad.empty())
      m_ctx.out.add("inline-asm", "error", at,
                    fmt::format("inline PTX uses {}; allowed: mma, wgmma, ldmatrix, stmatrix, movmatrix, cp.async, "
                                "ld, ldu, st, mov, shfl, bar, barrier, fence, membar, mbarrier, cvt, cvta, prmt, "
                                "setp/selp, createpolicy and .reg/.pred declarations",
                                bad));
  }

  void check_attribute(int i) {
    auto toks = m_ast.tokens(m_ast.nodes[i].cursor);
    for (size_t k = 0; k < toks.size() && k < 3; ++k) {
      std::string t = toks[k].text;
      if (t.size() > 4 && t.starts_with("__") && t.ends_with("__")) t = t.substr(2, t.size() - 4);
      if (t == "alias" || t == "weakref" || t == "ifunc" || t == "symver") {
        int parent = m_ast.nodes[i].parent;
        m_ctx.out.add("symbol-alias", "error", m_ast.position(m_ast.nodes[i].cursor),
                      fmt::format("the '{}' attribute on '{}' binds it to another symbol: name functions by their "
                                  "own names",
                                  t, parent >= 0 ? m_ast.spelling(m_ast.nodes[parent].cursor) : "?"));
        return;
      }
    }
  }

  const Context& m_ctx;
  const Ast& m_ast;
};

}  // namespace

void check_asm(const Context& ctx) { AsmCheck(ctx).run(); }

}  // namespace kwb::analysis
