#pragma once
// The interface of a trusted reference implementation (specs/<op>/reference.cpp).
// It runs in the trusted process only, reads the inputs in the variant's dtypes and writes
// every output element as a double (integers exactly).
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
  std::map<std::string, const void*> inputs;            // by tensor name (in and inout)
  std::map<std::string, std::vector<double>*> outputs;  // by tensor name, pre-sized

  int64_t param(const std::string& name) const { return params.at(name); }
  template <class T>
  const T* in(const std::string& name) const {
    return static_cast<const T*>(inputs.at(name));
  }
  double* out(const std::string& name) const { return outputs.at(name)->data(); }
};

using ReferenceFn = void (*)(const ReferenceArgs&);

}  // namespace kwb::core
