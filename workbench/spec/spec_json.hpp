#pragma once
// The public JSON view of a spec (GET /v1/specs/{op}, `kwb specs --json`).
#include <nlohmann/json.hpp>

#include "core/spec.hpp"

namespace kwb::spec {
nlohmann::json to_json(const core::Spec& s);
// The "contract" member of to_json: per variant, then backend ("cpu", "cuda", "cuda-launcher"),
// {prototype, params, entry | launch_args + note, template: {source, complete, file}}.
nlohmann::json contract_json(const core::Spec& s);
}  // namespace kwb::spec
