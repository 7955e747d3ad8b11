#include "eval/device_gate.hpp"

#include <map>

namespace kwb::eval {

std::shared_ptr<DeviceGate> device_gate(const std::string& key) {
  if (key.empty()) return nullptr;
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<DeviceGate>> gates;  // a host has a handful of GPUs
  std::lock_guard lock(mutex);
  auto& g = gates[key];
  if (!g) g = std::make_shared<DeviceGate>();
  return g;
}

}  // namespace kwb::eval
