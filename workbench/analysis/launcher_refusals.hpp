#pragma once
// What a cuda-launcher candidate may not call, by name, and what to say instead (the rule
// launcher-streams, check_launcher.cpp; docs/analysis.md).
#include <optional>
#include <string_view>

namespace kwb::analysis {

// A refused call: what it does ("'x' <what>"), and what to do instead, where {s} stands for the
// entry's stream parameter.
struct LauncherRefusal {
  const char* what;
  const char* instead;
};

// The refusal of a function, by its (qualified) name; none when a launcher may call it.
std::optional<LauncherRefusal> launcher_refusal(std::string_view name);
// A cuBLAS function that does no GPU work on the handle's stream (cublasCreate, cublasSetStream).
bool cublas_admin_call(std::string_view name);
// A driver API name without the suffix its macros add (cuCtxCreate_v2 -> cuCtxCreate).
std::string_view without_api_version(std::string_view name);

}  // namespace kwb::analysis
