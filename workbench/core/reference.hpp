#pragma once
// The interface a trusted reference (specs/<op>/reference.cpp) is written against:
//
//   #include "core/reference.hpp"
//   namespace kwb::reference {
//   void <op>(const kwb::core::ReferenceArgs& a) {   // <op>: the spec's op name
//     const int64_t n = a.param("n");
//     const double eps = a.scalar("eps");           // declared scalars (spec "scalars")
//     const float* x = a.in<float>("x");              // inputs in the variant's dtypes
//     double* y = a.out("y");                         // every output element, as a double
//     if (a.has("bias")) ...                          // an optional tensor the variant has
//     ...
//   }
//   }
//
// Header-only and standard-library-only: the workbench compiles each spec's reference against
// this very file (with core/dtype.hpp, core/parallel_ranges.hpp and the C entry of
// core/reference_entry.hpp) in its compile sandbox, and runs it in a reference process of its
// own (eval/reference_host.hpp). What the reference throws is an error that blames the spec.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace kwb::core {

struct ReferenceArgs {
  std::string variant;
  std::map<std::string, int64_t> params;
  std::map<std::string, double> scalars;      // the spec's floating-point scalars
  std::map<std::string, const void*> inputs;  // by tensor name (in and inout)
  std::map<std::string, double*> outputs;     // by tensor name (out and inout), one double per element
  std::map<std::string, size_t> counts;       // elements per tensor (filled by the reference entry)

  int64_t param(const std::string& name) const {
    auto it = params.find(name);
    if (it == params.end()) throw std::invalid_argument("the reference asked for param '" + name + "', which the spec does not have");
    return it->second;
  }
  double scalar(const std::string& name) const {
    auto it = scalars.find(name);
    if (it == scalars.end()) throw std::invalid_argument("the reference asked for scalar '" + name + "', which the spec does not have");
    return it->second;
  }
  // Whether the variant has tensor `name` (false for an optional tensor it omits).
  bool has(const std::string& name) const { return inputs.count(name) > 0 || outputs.count(name) > 0; }
  // Elements of tensor `name` (0 where the caller did not say: only the reference entry does).
  size_t count(const std::string& name) const {
    auto it = counts.find(name);
    return it == counts.end() ? 0 : it->second;
  }
  template <class T>
  const T* in(const std::string& name) const {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw std::invalid_argument("the reference asked for input '" + name + "', which the spec does not have");
    return static_cast<const T*>(it->second);
  }
  double* out(const std::string& name) const {
    auto it = outputs.find(name);
    if (it == outputs.end()) throw std::invalid_argument("the reference asked for output '" + name + "', which the spec does not have");
    return it->second;
  }
};

}  // namespace kwb::core
