#pragma once
// Element types of spec tensors.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kwb::core {

enum class DType { f32, f64, bf16, f16, i32, u32, i64, u8 };

size_t dtype_size(DType t);
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);  // "f32", "bf16", "u8", ...
bool dtype_is_integer(DType t);
// Element i of a buffer of type t, widened to double (bf16/f16 decoded exactly).
double load_as_double(const void* data, DType t, size_t i);
// Rounds v to type t (round-to-nearest-even, also for bf16/f16) and stores element i.
void store_from_double(void* data, DType t, size_t i, double v);
// bf16 helpers (bits <-> float), used by references and input generation.
float bf16_to_float(uint16_t bits);
uint16_t float_to_bf16(float v);

}  // namespace kwb::core
