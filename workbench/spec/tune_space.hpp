#pragma once
// The space of a launch plan's tunables (docs/tuning.md): each tunable's values, written as a
// list, a range or powers of two, and the constraints over them. A space of at most
// k_max_tune_configs is evaluated exhaustively (every config); a larger one, up to
// k_max_tune_space, is searched (eval/config_search.hpp).
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/launch_plan.hpp"
#include "util/error.hpp"

namespace kwb::spec {

constexpr size_t k_max_tune_configs = 64;     // evaluated exhaustively
constexpr size_t k_max_tune_space = 4096;     // searched (after the constraints)
constexpr size_t k_max_tune_product = 65536;  // the tunables' product before the constraints
constexpr size_t k_max_tune_values = 1024;    // one tunable's values

// One tunable's values, comma-separated items each of which is an integer `V`, an inclusive
// range `LO..HI` (step 1), `range(LO,HI,STEP)` (LO, LO+STEP, ... up to HI inclusive) or
// `pow2(LO,HI)` (the powers of two from LO to HI, both powers of two). The error says what is
// wrong with which item (the caller adds the place).
util::Result<std::vector<int64_t>> parse_tune_values(std::string_view text);

// Every combination of the tunables' values that satisfies every constraint, in the order
// written (the last tunable varying fastest). Errors name `file`, the line and what is wrong: a
// constraint that uses a name other than a tunable, one that cannot be evaluated for some
// combination (division by zero), a product above k_max_tune_product, a space above
// k_max_tune_space, no combination left.
util::Result<std::vector<core::TuneConfig>> enumerate_tune_space(const core::LaunchPlan& plan, std::string_view file);

}  // namespace kwb::spec
