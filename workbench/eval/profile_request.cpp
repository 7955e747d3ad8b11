#include "eval/profile_request.hpp"

#include "core/backend.hpp"

namespace kwb::eval {

core::ProfileOutcome profile_outcome(const std::string& backend, const std::string& status) {
  if (core::is_backend(backend, core::Backend::cpu))
    return {"not_applicable",
            "profiles are Nsight Compute runs of CUDA kernels; a cpu candidate's feedback is its vectorisation "
            "remarks (diagnostics with rule \"vectorization\") and its roofline position"};
  if (status == "no_device")
    return {"no_device",
            "no CUDA device on this machine: a profile (Nsight Compute) needs one; the compiler facts above come "
            "from the compiler without it. Submit to a daemon with a GPU for a profile"};
  if (status != "accepted")
    return {"skipped", "the candidate's verdict is " + status +
                           ": profiles are taken of the bench workloads of a candidate that passed its checks"};
  return {"unavailable",
          "the evaluation took no profile (a comparison run again after a restart, or a verdict of a workbench "
          "without the profile pass: docs/profiles.md); ask again with `kwb profile ID`"};
}

}  // namespace kwb::eval
