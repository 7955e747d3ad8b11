#pragma once
// kwb.verdict.v1 JSON back into Verdict (the inverse of core::to_json), so clients render
// a daemon's verdict with the same table as `kwb eval`.
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/verdict.hpp"
#include "util/error.hpp"

namespace kwb::core {

// Fails (naming the field) when the document is not a kwb.verdict.v1 object; unknown fields are
// ignored, missing optional ones stay empty.
util::Result<Verdict> verdict_from_json(const nlohmann::json& j);
std::optional<Status> status_from_name(std::string_view name);

}  // namespace kwb::core
