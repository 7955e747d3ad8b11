#pragma once
// The values a filter accepts (the API's query parameters, the CLI's --state/--status/--op/
// --backend): an unknown value is refused with the valid ones, never matched as "nothing".
#include <optional>
#include <string>
#include <vector>

namespace kwb::core {

const std::vector<std::string>& candidate_states();  // queued, analyzing, ..., done, cancelled
const std::vector<std::string>& verdict_statuses();  // accepted, incorrect, ..., error
const std::vector<std::string>& backend_names();     // cpu, cuda, cuda-launcher

// nullopt when `value` is one of `valid`; else "unknown <what> 'x' (valid: a, b, c)", with
// "; did you mean 'y'?" when one is close.
std::optional<std::string> refuse_unknown(const std::string& what, const std::string& value,
                                          const std::vector<std::string>& valid);

}  // namespace kwb::core
