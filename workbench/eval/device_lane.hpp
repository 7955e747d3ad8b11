#pragma once
// One GPU's lane as an evaluation sees it (docs/architecture.md "Lanes"): the device the lane
// times on and its pool of pre-started runner sessions for that device (may be null). The lane
// binds each evaluation it takes to it before validate() (Evaluation::bind_lane).
#include <memory>

#include "eval/cuda_device.hpp"
#include "eval/gpu_session_pool.hpp"

namespace kwb::eval {

struct DeviceLane {
  CudaDevice device;
  std::shared_ptr<GpuSessionPool> sessions;
};

}  // namespace kwb::eval
