// entry-signature: the entry point (or the launch plan's kernels) against the spec.
#include <fmt/format.h>

#include <optional>
#include <set>

#include "analysis/checks.hpp"
#include "core/backend.hpp"
#include "spec/prototype.hpp"
#include "util/similar.hpp"

namespace kwb::analysis {

namespace {

using ParamKind = spec::EntryParam::Kind;
using ExpectedParam = spec::EntryParam;

// "const float *__restrict" -> "const float* __restrict"
std::string tidy_type(std::string s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ' ' && i + 1 < s.size() && (s[i + 1] == '*' || s[i + 1] == '&')) continue;
    out += s[i];
    if ((s[i] == '*' || s[i] == '&') && i + 1 < s.size() && s[i + 1] != ' ' && s[i + 1] != '*' && s[i + 1] != '&' &&
        s[i + 1] != ')')
      out += ' ';
  }
  return out;
}

class SignatureCheck {
 public:
  explicit SignatureCheck(const Context& ctx) : m_ctx(ctx), m_ast(ctx.ast), m_cx(ctx.ast.cx) {}

  void run() {
    const auto& req = m_ctx.req;
    const bool kernels = core::is_backend(req.backend, core::Backend::cuda);
    if (kernels && (!req.kernel_names.empty() || !req.launches.empty())) {
      std::set<std::string> seen;
      for (const auto& launch : req.launches) {
        bool first = seen.insert(launch.kernel).second;
        auto def = check_kernel_exists(launch.kernel, first);
        if (def) check_launch(launch, *def);
      }
      for (const auto& name : req.kernel_names)
        if (seen.insert(name).second) check_kernel_exists(name, true);
      return;
    }
    check_entry(req.variant.entry, kernels);
  }

 private:
  // Every declaration of a function named `name` written in the candidate.
  std::vector<int> declarations(const std::string& name) const {
    std::vector<int> out;
    for (size_t i = 0; i < m_ast.nodes.size(); ++i)
      if (m_ast.nodes[i].kind == CXCursor_FunctionDecl && m_ast.enclosing_function(int(i)) < 0 &&
          m_ast.spelling(m_ast.nodes[i].cursor) == name)
        out.push_back(int(i));
    return out;
  }

  bool c_linkage(CXCursor fn) const { return m_cx.str(m_cx.Cursor_getMangling(fn)) == m_ast.spelling(fn); }

  std::string actual_text(CXCursor fn) const {
    std::string s = tidy_type(m_ast.type_spelling(m_cx.getCursorResultType(fn))) + " " + m_ast.spelling(fn) + "(";
    int n = m_cx.Cursor_getNumArguments(fn);
    for (int i = 0; i < n; ++i) {
      CXCursor p = m_cx.Cursor_getArgument(fn, unsigned(i));
      std::string name = m_ast.spelling(p);
      s += (i ? ", " : "") + tidy_type(m_ast.type_spelling(m_cx.getCursorType(p))) + (name.empty() ? "" : " " + name);
    }
    if (m_cx.isFunctionTypeVariadic(m_cx.getCursorType(fn))) s += n ? ", ..." : "...";
    return s + ")";
  }

  // Empty when the parameter's type is the expected one; else what it is.
  std::string param_mismatch(CXType actual, const ExpectedParam& e) const {
    CXType c = m_ast.canonical(actual);
    std::string got = tidy_type(m_ast.type_spelling(actual));
    // NVRTC has no <cstdint>: CUDA kernels may spell int64_t as long long (the same 64-bit type).
    if (e.kind == ParamKind::scalar && e.c_type == "double") return c.kind == CXType_Double ? "" : got;
    if (e.kind == ParamKind::scalar) return c.kind == CXType_Long || (m_ctx.cuda && c.kind == CXType_LongLong) ? "" : got;
    if (c.kind != CXType_Pointer) return got;
    if (e.kind == ParamKind::workspace) return "";  // scratch memory: any pointer type
    CXType pointee = m_cx.getPointeeType(c);
    if (e.kind == ParamKind::stream) return m_ast.canonical_name(pointee) == "CUstream_st" ? "" : got;
    bool is_const = m_cx.isConstQualifiedType(pointee) != 0;
    if (is_const != e.is_const || m_cx.isVolatileQualifiedType(pointee)) return got;
    return element_matches(pointee, e.c_type) ? "" : got;
  }

  bool element_matches(CXType pointee, const std::string& c_type) const {
    CXType t = m_ast.canonical(pointee);
    if (c_type == "float") return t.kind == CXType_Float;
    if (c_type == "double") return t.kind == CXType_Double;
    if (c_type == "uint16_t") return t.kind == CXType_UShort;
    if (c_type == "int32_t") return t.kind == CXType_Int;
    if (c_type == "uint32_t") return t.kind == CXType_UInt;
    if (c_type == "int64_t") return t.kind == CXType_Long || (m_ctx.cuda && t.kind == CXType_LongLong);
    if (c_type == "uint8_t") return t.kind == CXType_UChar;
    if (c_type == "int8_t") return t.kind == CXType_SChar || (m_ctx.cuda && t.kind == CXType_Char_S);
    return t.kind == CXType_Record && m_ast.canonical_name(t) == c_type;  // __half, __nv_bfloat16, __nv_fp8_e4m3
  }

  void report(const Position& at, std::string message) {
    m_ctx.out.add("entry-signature", "error", at, std::move(message));
  }

  Position file_only() const { return Position{m_ctx.req.display_name, 0, 0}; }

  void check_entry(const std::string& entry, bool kernel) {
    auto params = spec::entry_params(m_ctx.req.spec, m_ctx.req.variant, m_ctx.req.backend);
    std::string expected = spec::prototype_text(entry, params, kernel);
    auto decls = declarations(entry);
    if (decls.empty()) {
      if (auto hint = intended_function(entry, params, kernel)) {
        report(hint->at, fmt::format("entry point '{}' not found; expected: extern \"C\" {}; '{}' at line {} looks "
                                     "intended ({}): name it '{}'",
                                     entry, expected, hint->name, hint->at.line, hint->why, entry));
        return;
      }
      report(file_only(), fmt::format("entry point '{}' not found; expected: extern \"C\" {}", entry, expected));
      return;
    }
    CXCursor def = m_cx.getCursorDefinition(m_ast.nodes[decls.front()].cursor);
    if (m_ast.is_null(def)) {
      report(m_ast.position(m_ast.nodes[decls.front()].cursor),
             fmt::format("entry point '{}' is declared but not defined; expected: extern \"C\" {}", entry, expected));
      return;
    }
    Position at = m_ast.position(def);
    std::string actual = actual_text(def);
    if (!c_linkage(def)) {
      report(at, fmt::format("entry point '{}' not found: '{}' has C++ linkage, so its symbol is mangled; declare "
                             "it extern \"C\"; expected: extern \"C\" {}; actual: {}",
                             entry, entry, expected, actual));
      return;
    }
    bool is_kernel = m_ast.has_attr(def, CXCursor_CUDAGlobalAttr);
    if (kernel != is_kernel) {
      report(at, fmt::format("entry point '{}' {}; expected: extern \"C\" {}; actual: {}", entry,
                             kernel ? "must be a __global__ kernel" : "must be a host function, not a __global__ kernel",
                             expected, actual));
      return;
    }
    std::string why;
    CXType fn_type = m_cx.getCursorType(def);
    if (m_ast.canonical(m_cx.getCursorResultType(def)).kind != CXType_Void) why = "it must return void";
    int n = m_cx.Cursor_getNumArguments(def);
    if (why.empty() && m_cx.isFunctionTypeVariadic(fn_type)) why = "it must not be variadic";
    if (why.empty() && n != int(params.size()))
      why = fmt::format("{} parameters instead of {}", n, params.size());
    for (int i = 0; why.empty() && i < n; ++i) {
      CXCursor p = m_cx.Cursor_getArgument(def, unsigned(i));
      std::string got = param_mismatch(m_cx.getCursorType(p), params[size_t(i)]);
      if (!got.empty())
        why = fmt::format("parameter {} ('{}'): expected {}, got {}", i + 1, params[size_t(i)].name,
                          params[size_t(i)].type_text(), got);
    }
    if (!why.empty())
      report(at, fmt::format("entry point '{}' does not match the spec ({}); expected: {}; actual: {}", entry, why,
                             expected, actual));
  }

  struct Intended {
    std::string name, why;
    Position at;
  };

  // When the entry point is missing: the function defined here that looks meant to be it — the
  // same parameters (count and types), or a similar name with the same number of parameters.
  std::optional<Intended> intended_function(const std::string& entry, const std::vector<ExpectedParam>& params,
                                            bool kernel) const {
    std::optional<Intended> best;
    int best_score = 0;
    for (size_t i = 0; i < m_ast.nodes.size(); ++i) {
      CXCursor fn = m_ast.nodes[i].cursor;
      if (m_ast.nodes[i].kind != CXCursor_FunctionDecl || m_ast.enclosing_function(int(i)) >= 0 ||
          !m_cx.isCursorDefinition(fn) || m_ast.has_attr(fn, CXCursor_CUDAGlobalAttr) != kernel)
        continue;
      int n = m_cx.Cursor_getNumArguments(fn);
      if (n != int(params.size())) continue;
      bool same_types = true;
      for (int k = 0; same_types && k < n; ++k)
        same_types = param_mismatch(m_cx.getCursorType(m_cx.Cursor_getArgument(fn, unsigned(k))), params[size_t(k)]).empty();
      std::string name = m_ast.spelling(fn);
      std::string known[] = {entry};
      bool similar = util::closest_name(name, known).has_value();
      if (!same_types && !similar) continue;
      int score = (same_types ? 2 : 0) + (similar ? 1 : 0);
      if (score <= best_score) continue;
      best_score = score;
      best = Intended{name,
                      same_types && similar ? "a similar name and the same parameters"
                      : same_types          ? "the same parameters"
                                            : "a similar name and as many parameters",
                      m_ast.position(fn)};
    }
    return best;
  }

  // The kernel's definition when it is an extern "C" __global__ function; else reports why not
  // (once per kernel: `report_problems`).
  std::optional<CXCursor> check_kernel_exists(const std::string& name, bool report_problems) {
    auto decls = declarations(name);
    std::string kernels;
    for (size_t i = 0; i < m_ast.nodes.size(); ++i)
      if (m_ast.nodes[i].kind == CXCursor_FunctionDecl && m_ast.has_attr(m_ast.nodes[i].cursor, CXCursor_CUDAGlobalAttr))
        kernels += (kernels.empty() ? "" : ", ") + m_ast.spelling(m_ast.nodes[i].cursor);
    std::optional<std::pair<Position, std::string>> problem;
    CXCursor def{};
    if (decls.empty()) {
      problem.emplace(file_only(), fmt::format("kernel '{}' named by the launch plan not found (__global__ kernels "
                                               "here: {})",
                                               name, kernels.empty() ? "none" : kernels));
    } else if (def = m_cx.getCursorDefinition(m_ast.nodes[decls.front()].cursor); m_ast.is_null(def)) {
      problem.emplace(m_ast.position(m_ast.nodes[decls.front()].cursor),
                      fmt::format("kernel '{}' is declared but not defined", name));
    } else if (!m_ast.has_attr(def, CXCursor_CUDAGlobalAttr)) {
      problem.emplace(m_ast.position(def), fmt::format("'{}' must be an extern \"C\" __global__ kernel; actual: {}",
                                                       name, actual_text(def)));
    } else if (!c_linkage(def)) {
      problem.emplace(m_ast.position(def), fmt::format("kernel '{}' has C++ linkage, so its symbol is mangled; "
                                                       "declare it extern \"C\"; actual: {}",
                                                       name, actual_text(def)));
    }
    if (!problem) return def;
    if (report_problems) report(problem->first, problem->second);
    return std::nullopt;
  }

  // The kernel's parameters take the launch's arguments, in order.
  void check_launch(const KernelLaunch& launch, CXCursor def) {
    auto params = spec::launch_params(m_ctx.req.spec, m_ctx.req.variant, launch.args);
    std::string expected = spec::prototype_text(launch.kernel, params, true);
    std::string why;
    int n = m_cx.Cursor_getNumArguments(def);
    if (n != int(params.size())) why = fmt::format("{} parameters for {} arguments", n, params.size());
    for (int i = 0; why.empty() && i < n; ++i) {
      CXCursor p = m_cx.Cursor_getArgument(def, unsigned(i));
      std::string got = param_mismatch(m_cx.getCursorType(p), params[size_t(i)]);
      if (!got.empty())
        why = fmt::format("parameter {} for argument '{}': expected {}, got {}", i + 1, params[size_t(i)].name,
                          params[size_t(i)].type_text(), got);
    }
    if (!why.empty())
      report(m_ast.position(def),
             fmt::format("kernel '{}' does not take the arguments of the launch{} ({}); expected: {}; actual: {}",
                         launch.kernel, launch.line > 0 ? fmt::format(" at line {}", launch.line) : "", why,
                         expected, actual_text(def)));
  }

  const Context& m_ctx;
  const Ast& m_ast;
  const Libclang& m_cx;
};

}  // namespace

void check_entry_signature(const Context& ctx) { SignatureCheck(ctx).run(); }

}  // namespace kwb::analysis
