// include: only <system> headers; preprocessor: no compiler-identity tests; symbol-alias:
// #pragma redefine_extname / weak. Includes are read from the preprocessing record, the rest from
// the raw tokens of the file (which also cover inactive #if regions).
#include <fmt/format.h>

#include <set>
#include <string_view>

#include "analysis/checks.hpp"
#include "core/backend.hpp"

namespace kwb::analysis {

namespace {

// Macros and operators whose value differs between clang (the analyzer) and g++/NVRTC (the
// compilers): code behind them could be one thing for the analysis and another when compiled.
const std::set<std::string, std::less<>> k_identity = {
    "__clang__",          "__clang_major__",       "__clang_minor__",  "__clang_patchlevel__",
    "__clang_version__",  "__llvm__",              "__GNUC__",         "__GNUC_MINOR__",
    "__GNUC_PATCHLEVEL__", "__GNUG__",             "__VERSION__",      "__NVCC__",
    "__CUDACC_RTC__",     "__NVCOMPILER",          "__INTEL_COMPILER", "__INTEL_LLVM_COMPILER",
    "_MSC_VER",           "__apple_build_version__", "__has_builtin",  "__has_feature",
    "__has_extension",    "__has_attribute",       "__has_cpp_attribute", "__has_c_attribute",
    "__has_declspec_attribute", "__has_include",   "__has_include_next", "__has_embed",
    "__is_identifier",    "__has_warning"};

bool has_parent_dir(std::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

class PreprocessorCheck {
 public:
  explicit PreprocessorCheck(const Context& ctx) : m_ctx(ctx), m_ast(ctx.ast) {}

  void run() {
    for (size_t i = 0; i < m_ast.nodes.size(); ++i)
      if (m_ast.nodes[i].kind == CXCursor_InclusionDirective) check_include(int(i));
    scan_tokens();
  }

 private:
  void include_error(const Position& at, std::string message) {
    m_ctx.out.add("include", "error", at, std::move(message));
  }

  void check_include(int i) {
    CXCursor c = m_ast.nodes[i].cursor;
    Position at = m_ast.position(c);
    std::string name = m_ast.spelling(c);
    auto toks = m_ast.tokens(c);
    bool quoted = false, angled = false;
    for (size_t k = 2; k < toks.size(); ++k) {
      if (toks[k].kind == CXToken_Literal && toks[k].text.starts_with('"')) quoted = true;
      if (toks[k].text == "<" && k == 2) angled = true;
    }
    const std::string allowed = "only system headers may be included, as <header>";
    if (!quoted && !angled) {
      include_error(at, fmt::format("computed #include (the header name comes from a macro) of '{}': {}", name, allowed));
    } else if (name.starts_with('/')) {
      include_error(at, fmt::format("absolute #include '{}': {}", name, allowed));
    } else if (has_parent_dir(name)) {
      include_error(at, fmt::format("#include '{}' leaves its directory with '..': {}", name, allowed));
    } else if (quoted) {
      include_error(at, fmt::format("quoted #include \"{}\": {} (write #include <{}> for a system header)", name,
                                    allowed, name));
    }
  }

  void scan_tokens() {
    auto toks = m_ast.file_tokens();
    std::set<std::pair<std::string, int>> seen;
    for (size_t i = 0; i < toks.size(); ++i) {
      const Token& t = toks[i];
      Position at{m_ctx.req.display_name, t.line, t.col};
      if (t.kind == CXToken_Identifier && k_identity.contains(t.text)) {
        if (seen.insert({t.text, t.line}).second)
          m_ctx.out.add("preprocessor", "error", at,
                        fmt::format("'{}' tests the compiler's identity or features: the analyzer (clang) and the "
                                    "compiler would see different code; remove the condition",
                                    t.text));
        continue;
      }
      // cuda-launcher sources are parsed on the host side, where __CUDA_ARCH__ is undefined: code
      // behind it (nvcc's device pass) would never be seen by the analysis.
      if (t.kind == CXToken_Identifier && core::is_backend(m_ctx.req.backend, core::Backend::cuda_launcher) && t.text.starts_with("__CUDA_ARCH")) {
        if (seen.insert({t.text, t.line}).second)
          m_ctx.out.add("preprocessor", "error", at,
                        fmt::format("'{}' in a cuda-launcher source: the analysis parses the host side, where it is "
                                    "undefined, so the device code behind it could not be checked; a launcher is "
                                    "compiled for the device's architecture only: remove the condition",
                                    t.text));
        continue;
      }
      bool line_start = i == 0 || toks[i - 1].line != t.line;
      if (line_start && (t.text == "#" || t.text == "%:") && i + 1 < toks.size() && toks[i + 1].line == t.line) {
        const std::string& directive = toks[i + 1].text;
        if (directive == "embed") {
          include_error(at, "#embed reads a file into the program: not allowed");
        } else if (directive == "pragma" && i + 2 < toks.size() && toks[i + 2].line == t.line) {
          const std::string& what = toks[i + 2].text;
          if (what == "redefine_extname" || what == "weak")
            m_ctx.out.add("symbol-alias", "error", at,
                          fmt::format("#pragma {} binds a name to another symbol: not allowed", what));
        }
      }
      if (t.text == "_Pragma" || t.text == "__pragma") {
        for (size_t k = i + 1; k < toks.size() && k < i + 4; ++k)
          if (toks[k].kind == CXToken_Literal &&
              (toks[k].text.find("redefine_extname") != std::string::npos ||
               toks[k].text.find("weak") != std::string::npos))
            m_ctx.out.add("symbol-alias", "error", at,
                          "_Pragma(\"redefine_extname/weak ...\") binds a name to another symbol: not allowed");
      }
    }
  }

  const Context& m_ctx;
  const Ast& m_ast;
};

}  // namespace

void check_preprocessor(const Context& ctx) { PreprocessorCheck(ctx).run(); }

}  // namespace kwb::analysis
