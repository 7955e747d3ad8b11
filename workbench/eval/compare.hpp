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
  // Set outputs: what is wrong with the first bad element, in words (replaces got/expected).
  std::string detail;
  bool ok() const { return mismatches == 0; }
};

// `poison` is the byte the output was filled with before the call (to count unwritten elements).
// A tolerance of atol = rtol = 0 is exact, including the sign of zero.
Comparison compare_output(const void* got, core::DType dtype, const std::vector<double>& want,
                          const core::Tolerance& tol, const std::vector<int64_t>& shape,
                          const std::string& tensor, unsigned char poison = 0xff);

// Whether element i of `data` (in `t`) holds the poison byte in every byte.
bool is_poison(const void* data, core::DType t, size_t i, unsigned char poison);
// The comparison rule for one element; abs_err and rel_err are set (INFINITY for NaN/Inf misses).
bool within_tolerance(double got, double want, const core::Tolerance& tol, double& abs_err, double& rel_err);

// One side of a set comparison (docs/specs.md "Set outputs"): a tensor's elements in `dtype`
// (f64 for a reference's outputs).
struct TensorView {
  const void* data = nullptr;
  core::DType dtype = core::DType::f64;
};

// An index output under a set rule (core::SetRule), row by row along its last dimension:
// `indices` (shape `shape`) must be distinct, in [0, of_row) and point at elements of the same row
// of `of` (rows of length `of_row`) that, with `values` (the rule's values output, same shape;
// data null when the rule has none), equal the value reported beside them within `tol`; the
// values' rows must equal `want_values`' as multisets within `tol`. Without values, the elements
// the indices select must equal those `want_indices` select, as multisets, exactly. Returns the
// comparison of the indices and of the values (empty without values).
struct SetComparison {
  Comparison indices, values;
};
SetComparison compare_set(TensorView indices, const std::vector<double>& want_indices, TensorView values,
                          const std::vector<double>* want_values, TensorView of, int64_t of_row,
                          const core::Tolerance& tol, const std::vector<int64_t>& shape,
                          const std::string& index_name, const std::string& values_name, unsigned char poison = 0xff);

// A sentence a person (or a model) can act on, e.g. "output y: 31 of 4096 elements wrong ...".
std::string describe_mismatch(const Comparison& c, const core::Tolerance& tol, size_t count,
                              const std::vector<int64_t>& shape, const std::string& tensor);

// Coordinates of flat index i in a row-major shape.
std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t>& shape);

}  // namespace kwb::eval
