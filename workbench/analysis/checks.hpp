#pragma once
// The checks, one file each. Each reads the parsed candidate and appends findings.
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis/ast.hpp"

namespace kwb::analysis {

class Findings {
 public:
  // Adds a finding unless the same rule already reported the same message at the same place.
  void add(std::string rule, std::string severity, const Position& at, std::string message);
  std::vector<core::Diagnostic> take() { return std::move(m_items); }
  bool empty() const { return m_items.empty(); }

 private:
  std::vector<core::Diagnostic> m_items;
  std::set<std::tuple<std::string, int, int, std::string>> m_seen;
};

struct Context {
  const Ast& ast;
  const Request& req;
  bool cuda;  // parsed as CUDA (device or host side)
  Findings& out;
};

void check_entry_signature(const Context& ctx);  // entry-signature
void check_calls(const Context& ctx);            // forbidden-call
void check_asm(const Context& ctx);              // inline-asm, symbol-alias (asm labels, attributes)
void check_globals(const Context& ctx);          // mutable-global-state
void check_preprocessor(const Context& ctx);     // include, preprocessor, symbol-alias (pragmas)
void check_precision(const Context& ctx);        // precision-downcast
void check_launcher_streams(const Context& ctx);  // launcher-streams (backend cuda-launcher only)

}  // namespace kwb::analysis
