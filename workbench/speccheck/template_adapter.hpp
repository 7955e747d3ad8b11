#pragma once
// A spec's CPU template (template.<variant>.cpp) as a reference: its source followed by a
// definition of kwb::reference::<op> that calls the template's entry point on typed copies of
// the outputs and writes them back as doubles. Built and run like the reference
// (eval::ReferenceHost::open_source), it gives what a same-precision kernel computes on the
// reference's own inputs, for the tolerance headroom of `kwb spec check` (tolerance_help.hpp).
#include <optional>
#include <string>

#include "core/spec.hpp"

namespace kwb::speccheck {

// The unit for variant `v` (nullopt when the spec ships no CPU template for it).
std::optional<std::string> template_reference_source(const core::Spec& spec, const core::Variant& v);

}  // namespace kwb::speccheck
