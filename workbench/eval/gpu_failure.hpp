#pragma once
// How kwb-gpu-runner's failures read as verdicts: its error replies carry a tag ("[fault] ...")
// that says whose fault they are (the candidate's CUDA evaluation, cuda_evaluation.hpp, and the
// spec's GPU reference, gpu_reference.hpp, read them).
#include <string>

#include "core/verdict.hpp"
#include "eval/harness.hpp"

namespace kwb::eval {

// The tag of a kwb-gpu-runner error ("[fault] ...") as a verdict status, with the tag removed.
CheckFailure classify_gpu_failure(core::Status status, const std::string& reason);

}  // namespace kwb::eval
