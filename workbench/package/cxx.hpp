#pragma once
// C++ spelling of spec things in generated code: dtypes, identifiers, and the spec expression
// language (docs/specs.md) translated into checked arithmetic on kwb::rt::I (src/runtime.hpp in
// the package: 64-bit values whose overflow or division by zero marks the result invalid, as the
// workbench's evaluator reports an error).
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "util/error.hpp"

namespace kwb::package {

// The pointee type of a tensor of this dtype: float, double, uint16_t (bf16/f16 bits),
// int32_t, uint32_t, int64_t, uint8_t — as the CPU entry points spell them.
std::string_view cxx_type(core::DType t);
// `name`, or `name_` when it is a C++ keyword (spec identifiers may be "int", "new", ...), a name
// the generated code uses (I, rt, stream, kwb) or starts with "kwb_" (the generated locals' prefix).
std::string cxx_name(std::string_view name);
// "softmax" + "f32" -> "softmax_f32"; characters of a variant label outside [A-Za-z0-9_] become '_'.
std::string function_name(std::string_view op, std::string_view variant);
// A C++ string literal ("..." with escapes).
std::string cxx_string(std::string_view text);

// The source's `#include <...>` lines, in order (generated units include them before the namespace
// that wraps a kernel's file, so that the system headers' include guards keep them out of it).
std::vector<std::string> include_lines(std::string_view source);

// Translates an expression into C++ of type kwb::rt::I, for code inside namespace kwb:
//   "max(1, ceil_div(n, 4 * BLOCK))" -> "rt::max(I(1), rt::ceil_div(I(n), I(4) * I(256)))"
// with each name replaced by `names` (params -> their C++ variable, tunables -> their value).
// The text is checked with the workbench's parser first; an unknown name is an error.
util::Result<std::string> cxx_expr(std::string_view text, const std::map<std::string, std::string>& names);

}  // namespace kwb::package
