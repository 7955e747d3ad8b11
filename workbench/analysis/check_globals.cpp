// mutable-global-state: a static-storage variable of the candidate written inside a function.
//
// From each reference to such a variable the check walks up the expression tree, tracking whether
// the expression designates the variable's storage ("object": `v`, `v.field`, `(v)`) or is a
// pointer into persistent writable memory ("pointer": a decayed array, `&v`, or the value of a
// static pointer to non-const). It stops at a write (assignment, ++/--, a non-const reference or
// pointer parameter, a non-const member call, an escaping non-const alias) or at a read.
#include <fmt/format.h>

#include <set>
#include <string_view>

#include "analysis/checks.hpp"

namespace kwb::analysis {

namespace {

// object: designates persistent storage; pointer: points into it; method: names a non-const
// member function of it (decided by the call: a returned non-const reference or pointer is
// followed, anything else is taken as a write).
enum class Use { read, write, object, pointer, method };

class GlobalsCheck {
 public:
  explicit GlobalsCheck(const Context& ctx) : m_ctx(ctx), m_ast(ctx.ast), m_cx(ctx.ast.cx) {}

  void run() {
    std::set<std::string> reported;
    report_handles(reported);
    for (size_t i = 0; i < m_ast.nodes.size(); ++i) {
      if (m_ast.nodes[i].kind != CXCursor_DeclRefExpr) continue;
      CXCursor var = m_ast.referenced(int(i));
      if (m_ast.is_null(var) || m_cx.getCursorKind(var) != CXCursor_VarDecl) continue;
      if (!m_ast.in_main_file(var) || !persistent(var)) continue;
      CXType type = m_ast.canonical(m_cx.getCursorType(var));
      bool const_object = is_const_object(type);
      bool mutable_target = points_to_mutable(type);
      if (const_object && !mutable_target) continue;
      int fn = m_ast.enclosing_function(int(i));
      if (fn < 0) continue;  // initialisers run once
      if (!written(int(i))) continue;
      std::string name = m_ast.spelling(var);
      Position decl = m_ast.position(var);
      if (!reported.insert(name + "@" + std::to_string(decl.line)).second) continue;
      std::string kind = m_ast.has_attr(var, CXCursor_CUDADeviceAttr) ? "__device__ global" : "static variable";
      m_ctx.out.add("mutable-global-state", "error", m_ast.position(m_ast.nodes[i].cursor),
                    fmt::format("{} '{}' (declared at line {}) is written in '{}': state kept across calls (such "
                                "as a cache keyed by pointer or shape) is not allowed; keep per-call data in "
                                "locals or the outputs (a const/constexpr table is fine)",
                                kind, name, decl.line, m_ast.spelling(m_ast.nodes[fn].cursor)));
    }
  }

 private:
  // A library handle kept in static storage (`static cublasHandle_t h;`, a cached stream or graph)
  // is state kept across calls even when it is only initialised: it is reported at its declaration.
  void report_handles(std::set<std::string>& reported) const {
    for (size_t i = 0; i < m_ast.nodes.size(); ++i) {
      const Node& n = m_ast.nodes[i];
      if (n.kind != CXCursor_VarDecl || !persistent(n.cursor)) continue;
      const char* what = handle_kind(m_ast.strip_arrays(m_ast.canonical(m_cx.getCursorType(n.cursor))));
      if (!what) continue;
      std::string name = m_ast.spelling(n.cursor);
      Position at = m_ast.position(n.cursor);
      if (!reported.insert(name + "@" + std::to_string(at.line)).second) continue;
      bool cublas = std::string_view(what).starts_with("a cuBLAS");
      m_ctx.out.add("mutable-global-state", "error", at,
                    fmt::format("static variable '{}' keeps {} across calls: state kept across calls is not "
                                "allowed; {}",
                                name, what,
                                cublas ? "create the handle per call (cublasCreate, cublasSetStream(handle, stream), "
                                         "cublasDestroy before returning)"
                                       : "use the entry's `stream` parameter and create nothing that outlives the "
                                         "call"));
    }
  }

  // What a handle type is ("a cuBLAS handle (cublasHandle_t)"), or nullptr.
  const char* handle_kind(CXType t) const {
    if (t.kind != CXType_Pointer) return nullptr;
    std::string pointee = m_ast.canonical_name(m_cx.getPointeeType(t));
    if (pointee == "cublasContext") return "a cuBLAS handle (cublasHandle_t)";
    if (pointee == "cublasLtContext") return "a cuBLASLt handle (cublasLtHandle_t)";
    if (pointee == "CUstream_st") return "a CUDA stream (cudaStream_t)";
    if (pointee == "CUevent_st") return "a CUDA event (cudaEvent_t)";
    if (pointee == "CUgraph_st" || pointee == "CUgraphExec_st") return "a CUDA graph";
    if (pointee == "CUmemPoolHandle_st") return "a CUDA memory pool (cudaMemPool_t)";
    return nullptr;
  }

  // Static storage duration (namespace scope, static member, local static, thread_local, CUDA
  // __device__), excluding per-block __shared__ and read-only __constant__ memory.
  bool persistent(CXCursor var) const {
    if (m_ast.has_attr(var, CXCursor_CUDASharedAttr) || m_ast.has_attr(var, CXCursor_CUDAConstantAttr)) return false;
    if (m_cx.getCursorTLSKind(var) != CXTLS_None) return true;
    auto sc = m_cx.Cursor_getStorageClass(var);
    if (sc == CX_SC_Static || sc == CX_SC_Extern) return true;
    CXCursor parent = m_cx.getCursorSemanticParent(var);
    return !Ast::is_function_kind(m_cx.getCursorKind(parent));
  }

  bool is_const_object(CXType t) const {
    if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference) return false;
    return m_cx.isConstQualifiedType(m_ast.strip_arrays(t)) != 0;
  }

  // A pointer (or reference) to non-const memory: writes through it persist too.
  bool points_to_mutable(CXType t) const {
    t = m_ast.strip_arrays(t);
    if (t.kind != CXType_Pointer && t.kind != CXType_LValueReference && t.kind != CXType_RValueReference) return false;
    CXType pointee = m_ast.canonical(m_cx.getPointeeType(t));
    if (pointee.kind == CXType_FunctionProto || pointee.kind == CXType_FunctionNoProto) return false;
    return m_cx.isConstQualifiedType(m_ast.strip_arrays(pointee)) == 0;
  }

  bool is_const_target(CXType t) const {  // pointer/reference to const
    t = m_ast.canonical(t);
    if (t.kind != CXType_Pointer && t.kind != CXType_LValueReference && t.kind != CXType_RValueReference) return false;
    return m_cx.isConstQualifiedType(m_ast.strip_arrays(m_ast.canonical(m_cx.getPointeeType(t)))) != 0;
  }

  bool is_mutable_ref_or_ptr(CXType t) const {
    t = m_ast.canonical(t);
    return (t.kind == CXType_Pointer || t.kind == CXType_LValueReference || t.kind == CXType_RValueReference) &&
           !is_const_target(t);
  }

  CXType type_of(int i) const { return m_ast.canonical(m_cx.getCursorType(m_ast.nodes[i].cursor)); }

  // Argument k of call node `call` is node `child`? Returns the argument index or -1.
  int argument_index(int call, int child) const {
    CXCursor c = m_ast.nodes[call].cursor;
    int n = m_cx.Cursor_getNumArguments(c);
    for (int k = 0; k < n; ++k)
      if (m_cx.equalCursors(m_cx.Cursor_getArgument(c, unsigned(k)), m_ast.nodes[child].cursor)) return k;
    return -1;
  }

  // How a call uses its argument `child` (an object or a pointer into persistent memory).
  Use call_use(int call, int child, Use state) const {
    CXCursor callee = m_ast.referenced(call);
    int k = argument_index(call, child);
    if (k < 0) return Use::read;  // the callee expression itself
    if (m_ast.is_null(callee)) return Use::write;  // through a function pointer: assume the worst
    CXCursorKind ck = m_cx.getCursorKind(callee);
    bool member_operator = ck == CXCursor_CXXMethod && m_ast.spelling(callee).starts_with("operator");
    if (member_operator && k == 0) return m_cx.CXXMethod_isConst(callee) ? Use::read : method_result(callee);
    int param = member_operator ? k - 1 : k;
    CXType fn = m_cx.getCursorType(callee);
    if (param >= m_cx.getNumArgTypes(fn)) return Use::write;  // variadic
    CXType pt = m_ast.canonical(m_cx.getArgType(fn, unsigned(param)));
    if (state == Use::object)
      return (pt.kind == CXType_LValueReference || pt.kind == CXType_RValueReference) && !is_const_target(pt)
                 ? Use::write
                 : Use::read;
    return is_mutable_ref_or_ptr(pt) || pt.kind == CXType_Dependent ? Use::write : Use::read;
  }

  // A non-const member function called on persistent storage: `v[i]` (float&) and `v.data()`
  // (float*) are followed; `v.push_back(x)`, `n.fetch_add(1)` and the like are writes.
  Use method_result(CXCursor method) const {
    CXType r = m_ast.canonical(m_cx.getCursorResultType(method));
    if ((r.kind == CXType_LValueReference || r.kind == CXType_RValueReference))
      return is_const_target(r) ? Use::read : Use::object;
    if (r.kind == CXType_Pointer) return is_const_target(r) ? Use::read : Use::pointer;
    return Use::write;
  }

  Use step(int p, int cur, Use state) const {
    const Node& n = m_ast.nodes[p];
    int idx = m_ast.child_index(cur);
    if (state == Use::method) {
      if (n.kind == CXCursor_CallExpr) {
        CXCursor method = m_ast.referenced(p);
        return m_ast.is_null(method) ? Use::write : method_result(method);
      }
      return n.kind == CXCursor_ParenExpr || n.kind == CXCursor_UnexposedExpr ? Use::method : Use::write;
    }
    switch (n.kind) {
      case CXCursor_ParenExpr: return state;
      case CXCursor_UnexposedExpr: {  // implicit casts
        CXType to = type_of(p), from = type_of(cur);
        if (state == Use::object) {
          if (from.kind == CXType_ConstantArray || from.kind == CXType_IncompleteArray) return Use::pointer;
          if (to.kind == CXType_Record) return m_cx.isConstQualifiedType(to) ? Use::read : Use::object;
          if (points_to_mutable(from) && to.kind == CXType_Pointer) return Use::pointer;  // value of a static pointer
          return Use::read;
        }
        return to.kind == CXType_Pointer && !is_const_target(to) ? Use::pointer : Use::read;
      }
      case CXCursor_CStyleCastExpr:
      case CXCursor_CXXStaticCastExpr:
      case CXCursor_CXXReinterpretCastExpr:
      case CXCursor_CXXConstCastExpr:
      case CXCursor_CXXFunctionalCastExpr: {
        CXType to = type_of(p);
        if (state == Use::object)
          return (to.kind == CXType_LValueReference || to.kind == CXType_RValueReference) && !is_const_target(to)
                     ? Use::object
                     : Use::read;
        return to.kind == CXType_Pointer && !is_const_target(to) ? Use::pointer : Use::read;
      }
      case CXCursor_MemberRefExpr: {
        if (idx != 0) return Use::read;
        CXCursor member = m_ast.referenced(p);
        if (!m_ast.is_null(member) && m_cx.getCursorKind(member) == CXCursor_CXXMethod)
          return m_cx.CXXMethod_isConst(member) ? Use::read : Use::method;
        return Use::object;  // v.field (object) or p->field (pointer): the field's storage
      }
      case CXCursor_ArraySubscriptExpr: return state == Use::pointer ? Use::object : Use::read;
      case CXCursor_UnaryOperator: {
        switch (m_cx.getCursorUnaryOperatorKind(n.cursor)) {
          case CXUnaryOperator_PostInc:
          case CXUnaryOperator_PostDec:
          case CXUnaryOperator_PreInc:
          case CXUnaryOperator_PreDec: return state == Use::object ? Use::write : Use::pointer;
          case CXUnaryOperator_AddrOf: return state == Use::object ? Use::pointer : Use::read;
          case CXUnaryOperator_Deref: return state == Use::pointer ? Use::object : Use::read;
          default: return Use::read;
        }
      }
      case CXCursor_BinaryOperator: {
        auto op = m_cx.getCursorBinaryOperatorKind(n.cursor);
        if (op == CXBinaryOperator_Assign) {
          if (idx == 0) return state == Use::object ? Use::write : Use::read;
          return state == Use::pointer ? Use::write : Use::read;  // the pointer escapes into another variable
        }
        if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub)
          return state == Use::pointer ? Use::pointer : Use::read;
        if (op == CXBinaryOperator_Comma) return idx == 1 ? state : Use::read;
        return Use::read;
      }
      case CXCursor_CompoundAssignOperator: return idx == 0 && state == Use::object ? Use::write : Use::read;
      case CXCursor_ConditionalOperator: return idx == 0 ? Use::read : state;
      case CXCursor_CallExpr: return call_use(p, cur, state);
      case CXCursor_VarDecl: {  // initialiser of an alias: int& r = v;  float* q = cache;
        CXType t = m_ast.canonical(m_cx.getCursorType(n.cursor));
        if (state == Use::object)
          return (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference) && !is_const_target(t)
                     ? Use::write
                     : Use::read;
        return is_mutable_ref_or_ptr(t) ? Use::write : Use::read;
      }
      case CXCursor_ReturnStmt: {
        int fn = m_ast.enclosing_function(p);
        if (fn < 0) return Use::read;
        return is_mutable_ref_or_ptr(m_cx.getCursorResultType(m_ast.nodes[fn].cursor)) ? Use::write : Use::read;
      }
      case CXCursor_CXXForRangeStmt: {  // for (auto& x : v): the loop variable is child 0
        const auto& ch = n.children;
        if (ch.empty() || ch[0] == cur || m_ast.nodes[ch[0]].kind != CXCursor_VarDecl) return Use::read;
        return is_mutable_ref_or_ptr(m_cx.getCursorType(m_ast.nodes[ch[0]].cursor)) ? Use::write : Use::read;
      }
      default: return Use::read;
    }
  }

  bool written(int ref) const {
    Use state = Use::object;
    for (int cur = ref, guard = 0; guard < 64; ++guard) {
      int p = m_ast.nodes[cur].parent;
      if (p < 0) return false;
      Use next = step(p, cur, state);
      if (next == Use::write) return true;
      if (next == Use::read) return false;
      state = next;
      cur = p;
    }
    return false;
  }

  const Context& m_ctx;
  const Ast& m_ast;
  const Libclang& m_cx;
};

}  // namespace

void check_globals(const Context& ctx) { GlobalsCheck(ctx).run(); }

}  // namespace kwb::analysis
