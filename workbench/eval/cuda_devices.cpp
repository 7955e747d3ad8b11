// Every GPU of the host, each checked in a sandbox of its own (cuda_device.hpp, cuda_devices()).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <future>
#include <mutex>

#include <fmt/format.h>

#include "eval/cuda_device.hpp"

namespace kwb::eval {

namespace {

// domain, bus, device, function of "0000:19:00.0" / "00000000:19:00.0"; false when malformed.
bool parse_pci_bus_id(const std::string& text, unsigned long out[4]) {
  unsigned long domain = 0, bus = 0, dev = 0, fn = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lx:%lx:%lx.%lx%c", &domain, &bus, &dev, &fn, &tail) != 4) return false;
  out[0] = domain, out[1] = bus, out[2] = dev, out[3] = fn;
  return true;
}

}  // namespace

GpuSessionOptions on_device(GpuSessionOptions o, const CudaDevice& d) {
  if (d.any_of_class) return o;  // not bound yet: the class's first GPU, as without lanes
  o.device_key = d.key;
  if (!d.uuid.empty()) {
    o.visible_device = d.uuid;
    o.ordinal = 0;
    o.device_minor = d.minor;
  } else {
    o.visible_device.clear();
    o.ordinal = d.ordinal;
    o.device_minor = -1;
  }
  return o;
}

int nvidia_minor(const std::string& pci_bus_id, const std::filesystem::path& gpus_dir) {
  unsigned long want[4], have[4];
  if (!parse_pci_bus_id(pci_bus_id, want)) return -1;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(gpus_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!parse_pci_bus_id(it->path().filename().string(), have) || !std::equal(want, want + 4, have)) continue;
    std::ifstream in(it->path() / "information");
    for (std::string line; std::getline(in, line);) {
      int minor = -1;
      if (std::sscanf(line.c_str(), "Device Minor: %d", &minor) == 1 && minor >= 0) return minor;
    }
  }
  return -1;
}

util::Result<std::vector<CudaDevice>> cuda_devices(store::Database& db, const GpuSessionOptions& opt) {
  GpuSessionOptions all_visible = opt;
  all_visible.visible_device.clear();
  all_visible.ordinal = 0;
  all_visible.device_minor = -1;
  auto listing = start_gpu_session(all_visible);
  if (!listing) return std::unexpected(listing.error());
  const nlohmann::json all = (*listing)->device.value("all", nlohmann::json::array());
  if (all.size() <= 1) {  // one GPU (or none): that session is the device's, as without lanes
    auto one = cuda_device(db, **listing);
    if (!one) return std::unexpected(one.error());
    return std::vector<CudaDevice>{*one};
  }
  listing->reset();
  // Each GPU in a sandbox bound to it alone, started side by side (about 250 ms each on the H200),
  // each on a thread that keeps it until it is read (a sandbox dies with the thread that started
  // it). Calibrations take turns: the first GPU of a class measures, the others find it stored.
  std::vector<CudaDevice> wanted;
  std::mutex calibration;
  std::vector<std::future<util::Result<CudaDevice>>> started;
  for (const auto& entry : all) {
    CudaDevice d;
    d.ordinal = entry.value("ordinal", int(wanted.size()));
    d.pci_bus_id = entry.value("pci_bus_id", std::string());
    d.uuid = entry.value("uuid", std::string());
    d.name = entry.value("name", std::string("CUDA GPU"));
    d.key = "cuda:" + d.pci_bus_id;
    d.minor = d.uuid.empty() ? -1 : nvidia_minor(d.pci_bus_id);
    started.push_back(std::async(std::launch::async, [o = on_device(opt, d), &db, &calibration]() -> util::Result<CudaDevice> {
      auto session = start_gpu_session(o);
      if (!session) return std::unexpected(session.error());
      std::lock_guard lock(calibration);
      return cuda_device(db, **session);
    }));
    wanted.push_back(d);
  }
  std::vector<CudaDevice> out;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const CudaDevice& w = wanted[i];
    auto d = started[i].get();
    auto unusable = [&](const std::string& why) {
      CudaDevice u = w;
      u.present = false;
      u.reason = fmt::format("GPU {} ({}, {}): {}", w.ordinal, w.name, w.pci_bus_id, why);
      out.push_back(u);
    };
    if (!d) {
      unusable(d.error().what());
      continue;
    }
    if (!d->present) {
      unusable(d->reason);
      continue;
    }
    if (d->pci_bus_id != w.pci_bus_id) {
      unusable("its sandbox, bound to it alone, found the GPU at " + d->pci_bus_id +
               " instead: CUDA_VISIBLE_DEVICES or the device nodes do not select it");
      continue;
    }
    d->ordinal = w.ordinal;
    d->minor = w.minor;
    out.push_back(*d);
  }
  return out;
}

}  // namespace kwb::eval
