#pragma once
// Lookup of the trusted reference implementation of an op (specs/<op>/reference.cpp).
#include <string_view>

#include "core/reference.hpp"

namespace kwb::reference {
// Returns nullptr when no reference is compiled in for `op`.
core::ReferenceFn find(std::string_view op);
}  // namespace kwb::reference
