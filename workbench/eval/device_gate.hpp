#pragma once
// One GPU's gate (docs/architecture.md "Lanes", "Sharing a GPU between two candidates"): every
// command a runner session sends to a GPU (launches, copies, timing batches, module loads, the
// driver's start-up) holds its GPU's gate for the whole round trip, so a GPU runs the work of one
// session at a time and no timed sample shares the device with anything else, while the trusted
// side's CPU work (inputs, references, output checks) of another candidate goes on meanwhile.
// Process-wide: every session of the daemon on one GPU (the lane's candidates, an incumbent timed
// against one, a GPU reference) finds the same gate by the GPU's key. Recursive: a paced timing
// holds it across its own requests.
#include <memory>
#include <mutex>
#include <string>

namespace kwb::eval {

using DeviceGate = std::recursive_mutex;

// The gate of the GPU `key` ("cuda:<pci bus id>"); null for an empty key (a session not bound to
// one GPU: nothing else in the process shares it).
std::shared_ptr<DeviceGate> device_gate(const std::string& key);

}  // namespace kwb::eval
