#pragma once
// Element types of spec tensors. Header-only: the trusted references (specs/<op>/reference.cpp)
// are compiled against this file as it is (core/reference_interface.hpp), so it uses nothing
// but the standard library.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

namespace kwb::core {

// Appended only: the numbers are part of the reference ABI (core/reference_abi.h).
enum class DType { f32, f64, bf16, f16, i32, u32, i64, u8, f8e4m3, f8e5m2, i8 };

// size_t dtype_size(DType); std::string_view dtype_name(DType);
// std::optional<DType> parse_dtype(std::string_view name);  // "f32", "bf16", "u8", ...
// bool dtype_is_integer(DType); bool dtype_is_fp8(DType);
// double load_as_double(const void* data, DType t, size_t i): element i widened to double
//   (bf16/f16 decoded exactly);
// void store_from_double(void* data, DType t, size_t i, double v): rounds v to t
//   (round-to-nearest-even, also for bf16/f16) and stores element i;
// float bf16_to_float(uint16_t bits), uint16_t float_to_bf16(float): for references and inputs.
// float f8e4m3_to_float(uint8_t), f8e5m2_to_float(uint8_t): fp8 decoded exactly;
// uint8_t double_to_f8e4m3(double), double_to_f8e5m2(double): round-to-nearest-even, finite values
//   beyond the largest saturate to it (as CUDA's __NV_SATFINITE conversions do), NaN stays NaN;
//   infinity saturates in e4m3 (which has none) and stays infinite in e5m2.
// fp8 is the OCP 8-bit format: e4m3 (bias 7, no infinity, NaN 0x7f/0xff, largest 448) and e5m2
// (bias 15, IEEE-like: infinities, NaNs, largest 57344), as __nv_fp8_e4m3 / __nv_fp8_e5m2.


inline size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::bf16: return 2;
    case DType::f16: return 2;
    case DType::i32: return 4;
    case DType::u32: return 4;
    case DType::i64: return 8;
    case DType::u8: return 1;
    case DType::f8e4m3: return 1;
    case DType::f8e5m2: return 1;
    case DType::i8: return 1;
  }
  return 0;
}

inline std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::i32: return "i32";
    case DType::u32: return "u32";
    case DType::i64: return "i64";
    case DType::u8: return "u8";
    case DType::f8e4m3: return "f8e4m3";
    case DType::f8e5m2: return "f8e5m2";
    case DType::i8: return "i8";
  }
  return "?";
}

inline std::optional<DType> parse_dtype(std::string_view n) {
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16, DType::i32, DType::u32, DType::i64, DType::u8,
                  DType::f8e4m3, DType::f8e5m2, DType::i8})
    if (dtype_name(t) == n) return t;
  return std::nullopt;
}

inline bool dtype_is_integer(DType t) {
  return t == DType::i32 || t == DType::u32 || t == DType::i64 || t == DType::u8 || t == DType::i8;
}

inline bool dtype_is_fp8(DType t) { return t == DType::f8e4m3 || t == DType::f8e5m2; }

inline float bf16_to_float(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

inline uint16_t float_to_bf16(float v) {
  uint32_t u = std::bit_cast<uint32_t>(v);
  if (std::isnan(v)) return uint16_t((u >> 16) | 0x40);  // keep NaN quiet
  uint32_t rounding = 0x7fff + ((u >> 16) & 1);
  return uint16_t((u + rounding) >> 16);
}

inline float f16_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0) {
    float f = std::ldexp(float(man), -24);
    return sign ? -f : f;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000 | (man << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

inline uint16_t float_to_f16(float f) {
  // Simple, exact-enough conversion via rounding of the magnitude.
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  float a = std::fabs(f);
  if (std::isnan(f)) return uint16_t(sign | 0x7e00);
  if (a >= 65520.0f) return uint16_t(sign | 0x7c00);
  if (a < 6.103515625e-05f) return uint16_t(sign | uint16_t(std::nearbyint(a * 16777216.0f)));
  int e;
  float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5,1)
  uint32_t man = uint32_t(std::nearbyint((m * 2.0f - 1.0f) * 1024.0f));
  int exp = e - 1 + 15;
  if (man == 1024) { man = 0; ++exp; }
  if (exp >= 31) return uint16_t(sign | 0x7c00);
  return uint16_t(sign | (exp << 10) | man);
}

// An 8-bit float with `man` mantissa bits and exponent bias `bias` (fp8 e4m3: 3, 7; e5m2: 2, 15).
// `special_exp`: the exponent field of infinities and NaNs (e5m2: 31), or -1 when only the code
// 0x7f is NaN (e4m3).
inline float small_float_to_float(uint8_t b, int man, int bias, int special_exp) {
  const int e = (b & 0x7f) >> man, m = b & ((1 << man) - 1);
  float v;
  if ((b & 0x7f) == 0x7f && special_exp < 0) v = std::numeric_limits<float>::quiet_NaN();
  else if (e == special_exp) v = m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else if (e == 0) v = std::ldexp(float(m), 1 - bias - man);
  else v = std::ldexp(float((1 << man) + m), e - bias - man);
  return (b & 0x80) ? -v : v;
}

inline uint8_t double_to_small_float(double v, int man, int bias, uint8_t max_code, uint8_t nan_code, bool has_inf) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  if (std::isnan(v)) return uint8_t(sign | nan_code);
  const double a = std::fabs(v);
  const double max = double(small_float_to_float(max_code, man, bias, has_inf ? 31 : -1));
  if (std::isinf(a)) return uint8_t(sign | (has_inf ? 0x7c : max_code));
  if (a == 0) return sign;
  int k = 0;
  std::frexp(a, &k);  // a = f * 2^k, f in [0.5, 1)
  const int emin = 1 - bias;
  const int e = k - 1 < emin ? emin : k - 1;
  const double quantum = std::ldexp(1.0, e - man);
  const double r = std::nearbyint(a / quantum) * quantum;  // round to nearest, ties to even
  if (r >= max) return uint8_t(sign | max_code);           // saturate finite values (SATFINITE)
  if (r < std::ldexp(1.0, emin)) return uint8_t(sign | uint8_t(r / std::ldexp(1.0, emin - man)));
  int rk = 0;
  const double f = std::frexp(r, &rk);  // r = f * 2^rk
  const int field = rk - 1 + bias;
  const int mant = int((f * 2 - 1) * double(1 << man));
  return uint8_t(sign | (field << man) | mant);
}

inline float f8e4m3_to_float(uint8_t b) { return small_float_to_float(b, 3, 7, -1); }
inline float f8e5m2_to_float(uint8_t b) { return small_float_to_float(b, 2, 15, 31); }
inline uint8_t double_to_f8e4m3(double v) { return double_to_small_float(v, 3, 7, 0x7e, 0x7f, false); }
inline uint8_t double_to_f8e5m2(double v) { return double_to_small_float(v, 2, 15, 0x7b, 0x7e, true); }

inline double load_as_double(const void* data, DType t, size_t i) {
  switch (t) {
    case DType::f32: return static_cast<const float*>(data)[i];
    case DType::f64: return static_cast<const double*>(data)[i];
    case DType::bf16: return bf16_to_float(static_cast<const uint16_t*>(data)[i]);
    case DType::f16: return f16_to_float(static_cast<const uint16_t*>(data)[i]);
    case DType::i32: return static_cast<const int32_t*>(data)[i];
    case DType::u32: return static_cast<const uint32_t*>(data)[i];
    case DType::i64: return double(static_cast<const int64_t*>(data)[i]);
    case DType::u8: return static_cast<const uint8_t*>(data)[i];
    case DType::f8e4m3: return f8e4m3_to_float(static_cast<const uint8_t*>(data)[i]);
    case DType::f8e5m2: return f8e5m2_to_float(static_cast<const uint8_t*>(data)[i]);
    case DType::i8: return static_cast<const int8_t*>(data)[i];
  }
  return 0;
}

// double -> float rounding to odd: rounding that float again to a narrower type then gives the
// correctly rounded (nearest-even) result of the double, with no double-rounding error.
inline float to_float_round_odd(double v) {
  float f = float(v);
  if (!std::isfinite(v) || double(f) == v) return f;
  uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::fabs(double(f)) > std::fabs(v)) u -= 1;  // rounded away from zero: step back
  return std::bit_cast<float>(u | 1);
}

inline void store_from_double(void* data, DType t, size_t i, double v) {
  switch (t) {
    case DType::f32: static_cast<float*>(data)[i] = float(v); break;
    case DType::f64: static_cast<double*>(data)[i] = v; break;
    case DType::bf16: static_cast<uint16_t*>(data)[i] = float_to_bf16(to_float_round_odd(v)); break;
    case DType::f16: static_cast<uint16_t*>(data)[i] = float_to_f16(to_float_round_odd(v)); break;
    case DType::i32: static_cast<int32_t*>(data)[i] = int32_t(v); break;
    case DType::u32: static_cast<uint32_t*>(data)[i] = uint32_t(v); break;
    case DType::i64: static_cast<int64_t*>(data)[i] = int64_t(v); break;
    case DType::u8: static_cast<uint8_t*>(data)[i] = uint8_t(v); break;
    case DType::f8e4m3: static_cast<uint8_t*>(data)[i] = double_to_f8e4m3(v); break;
    case DType::f8e5m2: static_cast<uint8_t*>(data)[i] = double_to_f8e5m2(v); break;
    case DType::i8: static_cast<int8_t*>(data)[i] = int8_t(v); break;
  }
}

}  // namespace kwb::core
