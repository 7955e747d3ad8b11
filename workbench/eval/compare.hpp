#pragma once
// The trusted comparator: one output tensor against the reference's doubles.
// Rule: |got - want| <= atol + rtol * |want|; a NaN expected needs a NaN; +-Inf must match
// exactly; exact tolerance (integers, copies) compares values exactly.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "core/verdict.hpp"

namespace kwb::eval {

struct Comparison {
  int64_t mismatches = 0;
  int64_t poisoned = 0;  // mismatching elements still holding the 0xFF poison pattern (unwritten)
  double max_abs_err = 0, max_rel_err = 0;
  std::optional<core::Mismatch> first;
  int64_t first_bad = -1, last_bad = -1;  // flat indices
  std::vector<int64_t> bad_rows;          // distinct first-dimension indices with a mismatch (capped)
  bool ok() const { return mismatches == 0; }
};

// `poison` is the byte the output was filled with before the call (to count unwritten elements).
// A tolerance of atol = rtol = 0 is exact, including the sign of zero.
Comparison compare_output(const void* got, core::DType dtype, const std::vector<double>& want,
                          const core::Tolerance& tol, const std::vector<int64_t>& shape,
                          const std::string& tensor, unsigned char poison = 0xff);

// A sentence a person (or a model) can act on, e.g. "output y: 31 of 4096 elements wrong ...".
std::string describe_mismatch(const Comparison& c, const core::Tolerance& tol, size_t count,
                              const std::vector<int64_t>& shape, const std::string& tensor);

// Coordinates of flat index i in a row-major shape.
std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t>& shape);

}  // namespace kwb::eval
