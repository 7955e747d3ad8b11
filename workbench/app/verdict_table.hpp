#pragma once
// Human-readable rendering of a verdict (the JSON form is core::to_json).
#include <string>

#include "core/verdict.hpp"

namespace kwb::app {
std::string render_verdict(const core::Verdict& v);
}
