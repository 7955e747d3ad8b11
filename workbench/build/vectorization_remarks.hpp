#pragma once
// The compiler's vectorisation remarks for a cpu candidate's loops (docs/verdict.md "Compiler
// facts"): g++ -fopt-info-vec-missed, clang++ -Rpass-missed=loop-vectorize. Each loop the
// compiler did not vectorise becomes one note (rule "vectorization") at its file:line in the
// candidate's own file, with the compiler's reasons; headers' loops are left out, repeats merged,
// at most k_max_vectorization_remarks kept.
#include <string>
#include <string_view>
#include <vector>

#include "core/verdict.hpp"

namespace kwb::build {

constexpr size_t k_max_vectorization_remarks = 20;

// The flags that make `identity`'s compiler ("g++ 12.2.0", "clang++ 19.1.7") report them.
std::vector<std::string> vectorization_remark_flags(const std::string& identity);

// The log lines that are remarks about `compiled_name` (what the compile cache keeps).
std::string vectorization_remark_lines(std::string_view log, std::string_view compiled_name);

std::vector<core::Diagnostic> parse_vectorization_remarks(std::string_view log, std::string_view compiled_name,
                                                          std::string_view display_name);

}  // namespace kwb::build
