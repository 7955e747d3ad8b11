#include "eval/cuda_device.hpp"

#include <fmt/format.h>

#include "store/device_repository.hpp"

namespace kwb::eval {

std::string CudaDevice::arch() const {
  if (!present) return "sm_90a";
  std::string a = fmt::format("sm_{}{}", cc_major, cc_minor);
  // Architecture-specific targets (wgmma, setmaxnreg, tcgen05) exist from Hopper on.
  if (cc_major >= 9) a += "a";
  return a;
}

std::string CudaDevice::describe() const {
  if (!present) return reason;
  return fmt::format("{} (sm_{}{}, {} SMs, CUDA driver {})", name, cc_major, cc_minor, sms, driver);
}

void fill_data_sheet(CudaDevice& d) {
  struct Sheet {
    const char* model;
    double bytes_per_s, f32, bf16;
  };
  // NVIDIA data sheets (SXM parts; dense tensor rates, no sparsity).
  static constexpr Sheet k_sheets[] = {
      {"H200", 4.8e12, 67e12, 989e12},
      {"H100 80GB HBM3", 3.35e12, 67e12, 989e12},
      {"H100 PCIe", 2.0e12, 51e12, 756e12},
      {"H100", 3.35e12, 67e12, 989e12},
      {"A100-SXM4-80GB", 2.039e12, 19.5e12, 312e12},
      {"A100", 1.555e12, 19.5e12, 312e12},
  };
  for (const auto& s : k_sheets)
    if (d.name.find(s.model) != std::string::npos) {
      d.sheet_bytes_per_s = s.bytes_per_s;
      d.sheet_f32_flops = s.f32;
      d.sheet_tensor_bf16_flops = s.bf16;
      return;
    }
}

namespace {
constexpr int k_calibration_timeout_ms = 180000;
}  // namespace

util::Result<CudaDevice> cuda_device(store::Database& db, const GpuSessionOptions& opt, bool force) {
  auto session = start_gpu_session(opt);
  if (!session) return std::unexpected(session.error());
  return cuda_device(db, **session, force);
}

util::Result<CudaDevice> cuda_device(store::Database& db, GpuSession& session, bool force) {
  CudaDevice d;
  const auto& j = session.device;
  d.pci_bus_id = j.value("pci_bus_id", std::string());  // a GPU that failed its warm-up has one
  d.ordinal = j.value("ordinal", 0);
  d.uuid = j.value("uuid", std::string());
  if (!d.pci_bus_id.empty()) d.key = "cuda:" + d.pci_bus_id;
  if (!j.value("present", false)) {
    d.reason = j.value("reason", std::string("no CUDA device"));
    return d;
  }
  d.present = true;
  d.name = j.value("name", std::string("CUDA GPU"));
  d.cc_major = j.value("cc_major", 0);
  d.cc_minor = j.value("cc_minor", 0);
  d.sms = j.value("sms", 0);
  d.l2_bytes = j.value("l2_bytes", size_t(0));
  d.memory_bytes = j.value("memory_bytes", size_t(0));
  d.l2_persisting_bytes = j.value("l2_persisting_bytes", int64_t(-1));
  d.max_smem_optin = j.value("max_smem_optin", 0);
  d.driver = j.value("driver", std::string("?"));
  d.max_sm_clock_mhz = j.value("max_sm_clock_mhz", 0u);
  if (d.pci_bus_id.empty()) d.pci_bus_id = "0";
  d.key = "cuda:" + d.pci_bus_id;
  d.id = fmt::format("cuda:{}:sm_{}{}:{}sm:driver {}", d.name, d.cc_major, d.cc_minor, d.sms, d.driver);
  fill_data_sheet(d);

  store::DeviceRepository repo(db);
  if (!force) {
    auto found = repo.find(d.id);
    if (!found) return std::unexpected(found.error());
    if (*found && (*found)->flops_per_s) {
      d.copy_bytes_per_s = (*found)->copy_bytes_per_s;
      d.fma_flops_per_s = *(*found)->flops_per_s;
      return d;
    }
  }
  auto cal = session.runner->command({{"op", "calibrate"}}, k_calibration_timeout_ms, "calibration");
  if (!cal) return util::fail("cuda", "calibration of " + d.name + " failed: " + cal.error().reason);
  d.copy_bytes_per_s = cal->value("copy_bytes_per_s", 0.0);
  d.fma_flops_per_s = cal->value("fma_flops_per_s", 0.0);
  d.calibrated_now = true;
  store::DeviceRecord rec;
  rec.id = d.id;
  rec.kind = "cuda";
  rec.name = d.name;
  rec.copy_bytes_per_s = d.copy_bytes_per_s;
  rec.flops_per_s = d.fma_flops_per_s;
  rec.details = {{"method", "cuMemcpyDtoDAsync of " + std::to_string(cal->value("copy_bytes", size_t(0))) +
                                " bytes, best of 10, bytes read + written; f32 FMA kernel (8 chains), best of 5; "
                                "CUDA events"},
                 {"sm", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
                 {"sms", d.sms},
                 {"l2_bytes", d.l2_bytes},
                 {"l2_persisting_bytes", d.l2_persisting_bytes},
                 {"memory_bytes", d.memory_bytes},
                 {"driver", d.driver},
                 {"max_sm_clock_mhz", d.max_sm_clock_mhz},
                 {"sm_clock_mhz_at_calibration", cal->value("sm_clock_mhz", 0u)},
                 {"sheet_bytes_per_s", d.sheet_bytes_per_s},
                 {"sheet_f32_flops_per_s", d.sheet_f32_flops},
                 {"sheet_tensor_bf16_flops_per_s", d.sheet_tensor_bf16_flops}};
  if (auto r = repo.put(rec); !r) return std::unexpected(r.error());
  return d;
}

}  // namespace kwb::eval
