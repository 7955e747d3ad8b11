#pragma once
// The public JSON view of a spec (GET /v1/specs/{op}, `kwb specs --json`).
#include <nlohmann/json.hpp>

#include "core/spec.hpp"

namespace kwb::spec {
nlohmann::json to_json(const core::Spec& s);
}  // namespace kwb::spec
