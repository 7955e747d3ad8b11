// launcher-streams (backend cuda-launcher): all GPU work goes on the stream the entry is given.
//
// "The stream" is the entry's cudaStream_t parameter, a cudaStream_t parameter of another function
// the candidate defines (every call of which is checked in turn, so it can only receive the
// stream), or a local cudaStream_t initialised from one of those. A stream variable that is
// assigned or has its address taken stops being the stream (and is reported). Every stream
// operand — the 4th `<<<...>>>` argument, and every argument passed to a cudaStream_t (CUstream)
// parameter, of cudaMemcpyAsync, CUB, cublasSetStream, cuLaunchKernel or the candidate's own
// helpers — must be the stream. Calls that create streams, events or graphs, act on the whole
// device, run host callbacks, allocate host memory or copy on the default stream are refused by
// name (launcher_refusals.cpp; resolved through the referenced declaration, as forbidden-call does).
#include <fmt/format.h>

#include <cctype>
#include <string_view>
#include <vector>

#include "analysis/checks.hpp"
#include "analysis/launcher_refusals.hpp"

namespace kwb::analysis {

namespace {

class LauncherCheck {
 public:
  explicit LauncherCheck(const Context& ctx) : m_ctx(ctx), m_ast(ctx.ast), m_cx(ctx.ast.cx) {}

  void run() {
    find_streams();
    int first_cublas = -1;
    bool cublas_stream_set = false;
    for (size_t i = 0; i < m_ast.nodes.size(); ++i) {
      const Node& n = m_ast.nodes[i];
      if (n.kind == CXCursor_DeclRefExpr) {
        check_named(int(i), m_ast.referenced(int(i)));
      } else if (n.kind == CXCursor_OverloadedDeclRef) {  // a dependent call in a template: every candidate
        for (unsigned k = 0, c = m_cx.getNumOverloadedDecls(n.cursor); k < c; ++k)
          if (check_named(int(i), m_cx.getOverloadedDecl(n.cursor, k))) break;
      } else if (n.kind == CXCursor_CallExpr) {
        CXCursor callee = m_ast.referenced(int(i));
        std::string name = m_ast.is_null(callee) ? "" : std::string(without_api_version(m_ast.spelling(callee)));
        if (name == "cublasSetStream") cublas_stream_set = true;
        if (first_cublas < 0 && name.starts_with("cublas") && !name.starts_with("cublasLt") && !cublas_admin_call(name))
          first_cublas = int(i);
        if (int config = launch_config(int(i)); config >= 0)
          check_launch(int(i), config);
        else if (!is_launch_config(int(i)))
          check_stream_arguments(int(i), callee);
      }
    }
    if (first_cublas >= 0 && !cublas_stream_set)
      report(m_ast.position(m_ast.nodes[first_cublas].cursor),
             fmt::format("'{}' runs on the cuBLAS handle's stream, which is the default stream unless "
                         "cublasSetStream is called; call cublasSetStream(handle, {}) after cublasCreate",
                         m_ast.spelling(m_ast.referenced(first_cublas)), m_name));
  }

 private:
  void report(const Position& at, std::string message) {
    m_ctx.out.add("launcher-streams", "error", at, std::move(message));
  }

  std::string subst(const char* text) const {
    std::string s = text;
    for (size_t at = s.find("{s}"); at != std::string::npos; at = s.find("{s}", at + m_name.size()))
      s.replace(at, 3, m_name);
    return s;
  }

  bool is_stream_type(CXType t) const {
    CXType c = m_ast.canonical(t);
    return c.kind == CXType_Pointer && m_ast.canonical_name(m_cx.getPointeeType(c)) == "CUstream_st";
  }

  bool is_stream_decl(CXCursor d) const {
    for (const auto& s : m_streams)
      if (m_cx.equalCursors(s, d)) return true;
    return false;
  }

  // The single expression a cursor wraps, or a null cursor.
  CXCursor last_child(CXCursor c) const {
    CXCursor out{};
    out.kind = CXCursor_InvalidCode;
    m_cx.visitChildren(
        c,
        [](CXCursor child, CXCursor, CXClientData data) {
          *static_cast<CXCursor*>(data) = child;
          return CXChildVisit_Continue;
        },
        &out);
    return out;
  }

  // Parentheses, implicit conversions and casts removed.
  CXCursor strip(CXCursor c) const {
    for (int guard = 0; guard < 32; ++guard) {
      CXCursorKind k = m_cx.getCursorKind(c);
      if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr && k != CXCursor_CStyleCastExpr &&
          k != CXCursor_CXXStaticCastExpr && k != CXCursor_CXXFunctionalCastExpr && k != CXCursor_CXXConstCastExpr &&
          k != CXCursor_CXXReinterpretCastExpr)
        break;
      CXCursor inner = last_child(c);
      if (m_cx.getCursorKind(inner) == CXCursor_InvalidCode || m_cx.getCursorKind(inner) == CXCursor_TypeRef) break;
      c = inner;
    }
    return c;
  }

  bool is_stream_value(CXCursor expr) const {
    CXCursor e = strip(expr);
    if (m_cx.getCursorKind(e) != CXCursor_DeclRefExpr) return false;
    return is_stream_decl(m_cx.getCursorReferenced(e));
  }

  bool left_out(CXCursor expr) const { return m_cx.Range_isNull(m_cx.getCursorExtent(expr)) != 0; }

  // The source text of an expression, whitespace collapsed; for a macro expansion
  // (cudaStreamPerThread), the name written where it is expanded.
  std::string text(CXCursor expr) const {
    CXSourceRange range = m_cx.getCursorExtent(expr);
    unsigned begin = 0, end = 0;
    m_cx.getFileLocation(m_cx.getRangeStart(range), nullptr, nullptr, nullptr, &begin);
    m_cx.getFileLocation(m_cx.getRangeEnd(range), nullptr, nullptr, nullptr, &end);
    const std::string& src = m_ctx.req.source;
    std::string s;
    auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
    if (end > begin && end <= src.size()) {
      for (size_t k = begin; k < end; ++k) {
        bool space = std::isspace(static_cast<unsigned char>(src[k]));
        if (!space) s += src[k];
        else if (!s.empty() && s.back() != ' ') s += ' ';
      }
    } else {
      for (size_t k = begin; k < src.size() && word(src[k]); ++k) s += src[k];
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
  }

  // What a wrong stream operand is, when that can be said.
  std::string stream_detail(CXCursor expr, const std::string& shown) const {
    if (shown.find("cudaStreamPerThread") != std::string::npos) return " (the per-thread default stream)";
    if (shown.find("cudaStreamLegacy") != std::string::npos) return " (the legacy default stream)";
    CXEvalResult r = m_cx.Cursor_Evaluate(expr);
    std::string out;
    if (r) {
      if (m_cx.EvalResult_getKind(r) == CXEval_Int && m_cx.EvalResult_getAsLongLong(r) == 0) out = " (the default stream)";
      m_cx.EvalResult_dispose(r);
    }
    CXCursorKind k = m_cx.getCursorKind(strip(expr));
    if (out.empty() && (k == CXCursor_IntegerLiteral || k == CXCursor_CXXNullPtrLiteralExpr || k == CXCursor_GNUNullExpr))
      out = " (the default stream)";
    return out;
  }

  // The entry's stream parameter, the cudaStream_t parameters of the candidate's other functions,
  // and locals initialised from those; minus any that is assigned or has its address taken.
  void find_streams() {
    for (size_t i = 0; i < m_ast.nodes.size(); ++i) {
      const Node& n = m_ast.nodes[i];
      if (n.kind != CXCursor_ParmDecl || n.parent < 0 || !Ast::is_function_kind(m_ast.nodes[n.parent].kind)) continue;
      if (!is_stream_type(m_cx.getCursorType(n.cursor))) continue;
      CXCursor fn = m_ast.nodes[n.parent].cursor;
      if (m_ast.nodes[n.parent].kind == CXCursor_FunctionDecl && m_ast.spelling(fn) == m_ctx.req.variant.entry &&
          m_ast.enclosing_function(n.parent) < 0 && !m_ast.spelling(n.cursor).empty())
        m_name = m_ast.spelling(n.cursor);
      m_streams.push_back(n.cursor);
    }
    if (m_name.empty()) m_name = "stream";
    // Locals initialised from a stream (to a fixed point: `s2 = s1 = stream`).
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t i = 0; i < m_ast.nodes.size(); ++i) {
        const Node& n = m_ast.nodes[i];
        if (n.kind != CXCursor_VarDecl || n.children.empty() || m_ast.enclosing_function(int(i)) < 0) continue;
        if (!is_stream_type(m_cx.getCursorType(n.cursor)) || is_stream_decl(n.cursor)) continue;
        if (m_cx.Cursor_getStorageClass(n.cursor) == CX_SC_Static) continue;
        if (is_stream_value(m_ast.nodes[n.children.back()].cursor)) {
          m_streams.push_back(n.cursor);
          grew = true;
        }
      }
    }
    // A stream variable that is changed is no longer the stream.
    std::vector<CXCursor> changed;
    for (size_t i = 0; i < m_ast.nodes.size(); ++i) {
      if (m_ast.nodes[i].kind != CXCursor_DeclRefExpr) continue;
      CXCursor var = m_ast.referenced(int(i));
      if (m_ast.is_null(var) || !is_stream_decl(var)) continue;
      int cur = int(i), p = m_ast.nodes[cur].parent;
      while (p >= 0 && (m_ast.nodes[p].kind == CXCursor_ParenExpr || m_ast.nodes[p].kind == CXCursor_UnexposedExpr)) {
        cur = p;
        p = m_ast.nodes[p].parent;
      }
      if (p < 0) continue;
      const Node& parent = m_ast.nodes[p];
      bool change = false;
      if (parent.kind == CXCursor_BinaryOperator)
        change = m_cx.getCursorBinaryOperatorKind(parent.cursor) == CXBinaryOperator_Assign && m_ast.child_index(cur) == 0;
      else if (parent.kind == CXCursor_CompoundAssignOperator)
        change = m_ast.child_index(cur) == 0;
      else if (parent.kind == CXCursor_UnaryOperator)
        change = m_cx.getCursorUnaryOperatorKind(parent.cursor) == CXUnaryOperator_AddrOf;
      else if (parent.kind == CXCursor_VarDecl) {
        CXType t = m_ast.canonical(m_cx.getCursorType(parent.cursor));
        change = t.kind == CXType_LValueReference &&
                 !m_cx.isConstQualifiedType(m_ast.canonical(m_cx.getPointeeType(t)));
      }
      if (!change) continue;
      changed.push_back(var);
      report(m_ast.position(m_ast.nodes[i].cursor),
             fmt::format("the stream variable '{}' is changed here (assigned, bound to a non-const reference or its "
                         "address taken): pass the entry's `{}` parameter on unchanged, and launch all GPU work on it",
                         m_ast.spelling(var), m_name));
    }
    std::erase_if(m_streams, [&](const CXCursor& s) {
      for (const auto& c : changed)
        if (m_cx.equalCursors(s, c)) return true;
      return false;
    });
  }

  // A reference to a function that is refused by name. Returns true when it reported.
  bool check_named(int i, CXCursor decl) {
    if (m_ast.is_null(decl)) return false;
    CXCursorKind k = m_cx.getCursorKind(decl);
    if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate) return false;
    CXCursor def = m_cx.getCursorDefinition(decl);
    if (!m_ast.is_null(def) && m_ast.in_main_file(def)) return false;  // the candidate's own function
    std::string name = m_ast.qualified_name(decl);
    auto refused = launcher_refusal(name);
    if (!refused) return false;
    report(m_ast.position(m_ast.nodes[i].cursor),
           fmt::format("'{}' {}; {}", name, refused->what, subst(refused->instead)));
    return true;
  }

  // The __cudaPushCallConfiguration call of a `<<<...>>>` launch (its second child), or -1.
  int launch_config(int call) const {
    for (int c : m_ast.nodes[call].children)
      if (is_launch_config(c)) return c;
    return -1;
  }

  bool is_launch_config(int node) const {
    if (m_ast.nodes[node].kind != CXCursor_CallExpr) return false;
    CXCursor callee = m_ast.referenced(node);
    if (m_ast.is_null(callee)) return false;
    std::string name = m_ast.spelling(callee);
    return name == "__cudaPushCallConfiguration" || name == "cudaConfigureCall";
  }

  void check_launch(int call, int config) {
    CXCursor cfg = m_ast.nodes[config].cursor;
    CXCursor callee = m_ast.referenced(call);
    std::string kernel = m_ast.is_null(callee) ? "kernel" : m_ast.spelling(callee);
    int n = m_cx.Cursor_getNumArguments(cfg);
    std::vector<std::string> written;
    for (int k = 0; k < n; ++k) {
      CXCursor arg = m_cx.Cursor_getArgument(cfg, unsigned(k));
      if (!left_out(arg)) written.push_back(text(arg));
    }
    std::string shown = kernel + "<<<" + fmt::format("{}", fmt::join(written, ", ")) + ">>>";
    std::string instead = fmt::format("launch on the entry's `{}` parameter: {}<<<grid, block, smem, {}>>>(...)",
                                      m_name, kernel, m_name);
    Position at = m_ast.position(m_ast.nodes[call].cursor);
    if (n < 4 || left_out(m_cx.Cursor_getArgument(cfg, 3))) {
      report(at, fmt::format("kernel launch '{}' has {} launch-configuration arguments, so it runs on the default "
                             "stream, not on the stream the entry is given; {}",
                             shown, written.size(), instead));
      return;
    }
    CXCursor stream = m_cx.Cursor_getArgument(cfg, 3);
    if (is_stream_value(stream)) return;
    std::string s = text(stream);
    report(m_ast.position(stream), fmt::format("kernel launch '{}' runs on '{}'{}, not on the entry's `{}` parameter; {}",
                                               shown, s, stream_detail(stream, s), m_name, instead));
  }

  // Every argument passed to a cudaStream_t (CUstream) parameter must be the stream; Async copies
  // must not copy to host memory.
  void check_stream_arguments(int call, CXCursor callee) {
    CXCursorKind ck = m_ast.is_null(callee) ? CXCursor_InvalidCode : m_cx.getCursorKind(callee);
    bool function = ck == CXCursor_FunctionDecl || ck == CXCursor_CXXMethod || ck == CXCursor_Constructor ||
                    ck == CXCursor_FunctionTemplate;
    CXCursor c = m_ast.nodes[call].cursor;
    CXType fn{};
    std::string name;
    if (function) {
      name = m_ast.qualified_name(callee);
      if (launcher_refusal(name)) return;  // reported by name
      fn = m_cx.getCursorType(callee);
    } else {
      // Through a function pointer (or reference): the parameters of the pointee's type.
      const auto& ch = m_ast.nodes[call].children;
      if (ch.empty()) return;
      CXType t = m_ast.canonical(m_cx.getCursorType(m_ast.nodes[ch.front()].cursor));
      if (t.kind == CXType_Pointer || t.kind == CXType_LValueReference) t = m_ast.canonical(m_cx.getPointeeType(t));
      if (t.kind != CXType_FunctionProto) return;
      fn = t;
      name = text(m_ast.nodes[ch.front()].cursor);
      ck = CXCursor_InvalidCode;
    }
    int params = m_cx.getNumArgTypes(fn), args = m_cx.Cursor_getNumArguments(c);
    int offset = ck == CXCursor_CXXMethod && m_ast.spelling(callee).starts_with("operator") && args == params + 1;
    for (int p = 0; p < params && p + offset < args; ++p) {
      CXType pt = m_cx.getArgType(fn, unsigned(p));
      CXCursor arg = m_cx.Cursor_getArgument(c, unsigned(p + offset));
      std::string pname;
      if (function && ck != CXCursor_FunctionTemplate && p < m_cx.Cursor_getNumArguments(callee))
        pname = m_ast.spelling(m_cx.Cursor_getArgument(callee, unsigned(p)));
      std::string param = pname.empty() ? fmt::format("parameter {}", p + 1) : fmt::format("parameter '{}'", pname);
      if (is_stream_type(pt)) {
        if (is_stream_value(arg)) continue;
        if (left_out(arg)) {
          report(m_ast.position(c), fmt::format("'{}' is called without its stream argument ({}), so it runs on the "
                                                "default stream; pass the entry's `{}` parameter",
                                                name, param, m_name));
        } else {
          std::string s = text(arg);
          report(m_ast.position(arg), fmt::format("'{}' is given '{}'{} as its stream ({}), not the entry's `{}` "
                                                  "parameter; pass `{}`",
                                                  name, s, stream_detail(arg, s), param, m_name, m_name));
        }
      } else if (m_ast.canonical_name(pt).find("cudaMemcpyKind") != std::string::npos && !left_out(arg)) {
        CXEvalResult r = m_cx.Cursor_Evaluate(arg);
        if (!r) continue;
        long long kind = m_cx.EvalResult_getKind(r) == CXEval_Int ? m_cx.EvalResult_getAsLongLong(r) : -1;
        m_cx.EvalResult_dispose(r);
        if (kind == 0 || kind == 2)
          report(m_ast.position(arg),
                 fmt::format("'{}' copies to host memory ({}): launcher work stays on the device; keep intermediate "
                             "results in device memory (cudaMallocAsync(&p, bytes, {}))",
                             name, kind == 0 ? "cudaMemcpyHostToHost" : "cudaMemcpyDeviceToHost", m_name));
      }
    }
  }

  const Context& m_ctx;
  const Ast& m_ast;
  const Libclang& m_cx;
  std::vector<CXCursor> m_streams;
  std::string m_name;  // the entry's stream parameter ("stream" when there is none)
};

}  // namespace

void check_launcher_streams(const Context& ctx) { LauncherCheck(ctx).run(); }

}  // namespace kwb::analysis
