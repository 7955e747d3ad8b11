#pragma once
// A CUDA GPU as a device: found by kwb-gpu-runner in the sandbox (the driver is loaded with
// dlopen there, so this works, and says why not, on machines without a GPU), calibrated once
// (device-to-device copy bandwidth counting bytes read + written, f32 FMA rate) and stored in
// the workspace database (devices table, kind "cuda") with the data-sheet peaks in its details.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "eval/cuda_session.hpp"
#include "store/database.hpp"
#include "util/error.hpp"

namespace kwb::eval {

struct CudaDevice {
  bool present = false;
  std::string reason;  // why not present ("no CUDA device: libcuda.so.1 not found ...")
  std::string id;      // calibration identity: "cuda:NVIDIA H200:sm_90:132sm:driver 13.0"
  std::string key;     // its lane (benchmark slot): "cuda:<pci bus id>"
  // Which GPU of the host (docs/architecture.md "Lanes"): its ordinal in PCI bus order, bus id,
  // UUID ("" where the driver cannot tell) and /dev/nvidia<minor> (-1: unknown, every node bound).
  int ordinal = 0;
  std::string pci_bus_id, uuid;
  int minor = -1;
  // Stands for every GPU of its class: an evaluation made with it is bound to one of them by the
  // lane that takes it (CudaEvaluation::bind_lane); false: this very GPU.
  bool any_of_class = false;
  std::string name;    // "NVIDIA H200"
  int cc_major = 0, cc_minor = 0, sms = 0;
  size_t l2_bytes = 0, memory_bytes = 0;
  int64_t l2_persisting_bytes = -1;  // L2 set aside for persisting lines in the runner (pinned at 0)
  int max_smem_optin = 0;
  std::string driver;  // CUDA version the driver supports, "13.0"
  unsigned max_sm_clock_mhz = 0;
  double copy_bytes_per_s = 0;  // calibrated, bytes read + written
  double fma_flops_per_s = 0;   // calibrated f32 FMA rate (non-tensor)
  // Data-sheet peaks (0 when the model is not in the table).
  double sheet_bytes_per_s = 0, sheet_f32_flops = 0, sheet_tensor_bf16_flops = 0;
  bool calibrated_now = false;

  // NVRTC target for this device: sm_90a on Hopper (arch-specific features), else sm_XY.
  std::string arch() const;
  // "NVIDIA H200 (sm_90, 132 SMs, CUDA driver 13.0)" or the reason it is absent.
  std::string describe() const;
  // The queue its lanes serve: one per device class (id), so eight H200s are one class whose
  // tuning records, incumbents and leaderboards are shared (verdict.device is describe()).
  std::string lane_class() const { return "cuda:" + id; }
};

// `base` aimed at `d`: its sandbox sees that GPU only (CUDA_VISIBLE_DEVICES=<uuid>, its
// /dev/nvidia<minor>), or, without a UUID, every GPU with the device command's ordinal.
GpuSessionOptions on_device(GpuSessionOptions base, const CudaDevice& d);
// The minor number of the GPU at `pci_bus_id` ("0000:19:00.0", any case and domain width) from
// the NVIDIA driver's /proc/driver/nvidia/gpus/<bus id>/information ("Device Minor: N"); -1 when
// it is not there.
int nvidia_minor(const std::string& pci_bus_id,
                 const std::filesystem::path& gpus_dir = "/proc/driver/nvidia/gpus");

// Every GPU of this host (docs/architecture.md "Lanes"): one session that sees them all lists
// them, then each is started in a sandbox bound to it alone, which must find that same GPU (bus
// id) and pass the runner's warm-up. A GPU that fails comes back with present = false and the
// reason; the rest are calibrated once per device class. One entry (absent, with the reason)
// where there is no GPU at all.
util::Result<std::vector<CudaDevice>> cuda_devices(store::Database& db, const GpuSessionOptions& opt);

// Reads the device from a started session's `device` reply and loads its calibration, measuring
// and storing it when missing (or `force`). No GPU is not an error: the device comes back with
// present = false and a reason.
util::Result<CudaDevice> cuda_device(store::Database& db, GpuSession& session, bool force = false);
// The same with a session of its own, closed afterwards (what a daemon does at start-up).
util::Result<CudaDevice> cuda_device(store::Database& db, const GpuSessionOptions& opt, bool force = false);

// Data-sheet peaks by model name (H200, H100 SXM, ...): bytes/s, f32 flops, dense bf16 tensor flops.
void fill_data_sheet(CudaDevice& d);

}  // namespace kwb::eval
