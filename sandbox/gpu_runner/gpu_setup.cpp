// Device start-up, identity, module loading, arena mapping and launch dimensions.
#include <sys/mman.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "gpu_runner/gpu_runner.hpp"
#include "gpu_runner/helper_ptx.hpp"

namespace kwb::gpu {

nlohmann::json reply_error(const std::string& text) { return {{"ok", false}, {"error", text}}; }

std::string GpuRunner::check(CUresult rc, const std::string& what) const {
  return rc == CUDA_SUCCESS ? std::string() : what + ": " + m_cu.describe(rc);
}

bool GpuRunner::init(std::string& error) {
  if (m_tried) {
    error = m_init_error;
    return m_ready;
  }
  m_tried = true;
  auto fail = [&](std::string e) {
    m_init_error = error = "no CUDA device: " + e;
    return false;
  };
  std::string e;
  if (!m_cu.load(m_driver, e)) return fail(e);
  if (auto rc = m_cu.cuInit(0); rc != CUDA_SUCCESS) return fail("cuInit failed: " + m_cu.describe(rc));
  int count = 0;
  if (m_cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) return fail("the driver reports no device");
  if (m_ordinal < 0 || m_ordinal >= count)
    return fail("device " + std::to_string(m_ordinal) + " asked for, the driver reports " + std::to_string(count));
  if (auto rc = m_cu.cuDeviceGet(&m_dev, m_ordinal); rc != CUDA_SUCCESS)
    return fail("cuDeviceGet: " + m_cu.describe(rc));
  m_cu.cuDevicePrimaryCtxSetFlags(m_dev, CU_CTX_SCHED_BLOCKING_SYNC);  // wait without spinning a CPU
  if (auto rc = m_cu.cuDevicePrimaryCtxRetain(&m_ctx, m_dev); rc != CUDA_SUCCESS)
    return fail("cannot create a context: " + m_cu.describe(rc));
  m_cu.cuCtxSetCurrent(m_ctx);
  if (auto s = check(m_cu.cuStreamCreate(&m_stream, CU_STREAM_DEFAULT), "cuStreamCreate"); !s.empty()) return fail(s);
  if (m_cu.cuEventCreate(&m_start, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      m_cu.cuEventCreate(&m_stop, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
    return fail("cuEventCreate failed");
  m_cu.cuDeviceGetAttribute(&m_sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, m_dev);
  m_cu.cuDeviceGetAttribute(&m_l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, m_dev);
  m_cu.cuDeviceGetAttribute(&m_smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, m_dev);
  pin_persisting_l2();
  m_pci = pci_bus_id(m_dev);
  m_uuid = uuid_of(m_dev);
  if (m_nvml.open(m_pci, m_nvml_error)) m_max_clock = m_nvml.max_sm_clock_mhz();
  m_ready = true;
  return true;
}

// No L2 set aside for persisting accesses: access-policy windows cannot keep lines across the
// flush (evict_last cache policies in a kernel's code can: reset_persisting_each_sample).
void GpuRunner::pin_persisting_l2() {
  int most = -1;
  if (m_cu.cuDeviceGetAttribute(&most, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, m_dev) == CUDA_SUCCESS &&
      most == 0) {  // the device has no set-aside
    m_l2_persisting_bytes = 0;
    return;
  }
  m_cu.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0);  // what it left is read back below
  size_t bytes = 0;
  m_l2_persisting_bytes = m_cu.cuCtxGetLimit(&bytes, CU_LIMIT_PERSISTING_L2_CACHE_SIZE) == CUDA_SUCCESS ? int64_t(bytes) : -1;
}

std::string GpuRunner::pci_bus_id(CUdevice d) const {
  char pci[64] = {};
  m_cu.cuDeviceGetPCIBusId(pci, sizeof pci, d);
  return pci;
}

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as CUDA_VISIBLE_DEVICES and nvidia-smi write it
// ("" where the driver cannot tell).
std::string GpuRunner::uuid_of(CUdevice d) const {
  CUuuid u{};
  if (!m_cu.cuDeviceGetUuid || m_cu.cuDeviceGetUuid(&u, d) != CUDA_SUCCESS) return "";
  std::string s = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    std::snprintf(hex, sizeof hex, "%02x", unsigned(static_cast<unsigned char>(u.bytes[i])));
    s += hex;
  }
  return s;
}

nlohmann::json GpuRunner::visible_devices() {
  nlohmann::json all = nlohmann::json::array();
  int count = 0;
  m_cu.cuDeviceGetCount(&count);
  for (int i = 0; i < count; ++i) {
    CUdevice d = 0;
    if (m_cu.cuDeviceGet(&d, i) != CUDA_SUCCESS) continue;
    char name[256] = {};
    m_cu.cuDeviceGetName(name, sizeof name, d);
    all.push_back({{"ordinal", i}, {"pci_bus_id", pci_bus_id(d)}, {"uuid", uuid_of(d)}, {"name", name}});
  }
  return all;
}

nlohmann::json GpuRunner::device(const nlohmann::json& cmd) {
  if (!m_tried) {
    m_driver = cmd.value("driver", std::string());
    m_ordinal = cmd.value("ordinal", 0);
  }
  std::string error;
  if (!init(error)) return {{"ok", true}, {"present", false}, {"reason", error}};
  nlohmann::json all = visible_devices();
  char name[256] = {};
  m_cu.cuDeviceGetName(name, sizeof name, m_dev);
  int major = 0, minor = 0, driver = 0, max_threads = 0;
  size_t memory = 0;
  m_cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, m_dev);
  m_cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, m_dev);
  m_cu.cuDeviceGetAttribute(&max_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, m_dev);
  m_cu.cuDeviceTotalMem(&memory, m_dev);
  m_cu.cuDriverGetVersion(&driver);
  if (auto e = warm_up(); !e.empty())
    return {{"ok", true}, {"present", false}, {"reason", "no usable CUDA device: " + e}, {"pci_bus_id", m_pci},
            {"uuid", m_uuid}, {"ordinal", m_ordinal}, {"all", all}};
  return {{"ok", true},
          {"present", true},
          {"ordinal", m_ordinal},
          {"uuid", m_uuid},
          {"all", all},
          {"name", name},
          {"cc_major", major},
          {"cc_minor", minor},
          {"sms", m_sms},
          {"l2_bytes", m_l2},
          {"l2_persisting_bytes", m_l2_persisting_bytes},
          {"memory_bytes", memory},
          {"max_smem_optin", m_smem_optin},
          {"max_threads_per_block", max_threads},
          {"driver", std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10)},
          {"pci_bus_id", m_pci},
          {"max_sm_clock_mhz", m_max_clock},
          {"nvml", m_nvml.ready()},
          {"nvml_error", m_nvml_error}};
}

std::string GpuRunner::warm_up() {
  std::string error;
  m_cupti.load(error);  // open() enables the records if the evaluation picks this clock; else it says why
  if (!load_helpers(error) || !ensure_flush_buffer(0).empty()) return {};  // the commands that need them say why
  flush_l2();
  if (m_noop) m_cu.cuLaunchKernel(m_noop, 1, 1, 1, 32, 1, 1, 0, m_stream, nullptr, nullptr);
  dirty_shared_memory();
  // No candidate has run yet: a failure here is the device's, not a kernel's to be blamed for.
  return check(m_cu.cuStreamSynchronize(m_stream), "the runner's helper kernels failed on the device");
}

bool GpuRunner::load_helpers(std::string& error) {
  if (m_helpers) return true;
  if (auto s = check(m_cu.cuModuleLoadData(&m_helpers, k_helper_ptx), "loading the runner's helper kernels");
      !s.empty()) {
    error = s;
    m_helpers = nullptr;
    return false;
  }
  m_cu.cuModuleGetFunction(&m_dirty, m_helpers, "kwb_dirty_smem");
  m_cu.cuModuleGetFunction(&m_fma, m_helpers, "kwb_fma_peak");
  m_cu.cuModuleGetFunction(&m_l2_clean, m_helpers, "kwb_l2_clean");
  m_cu.cuModuleGetFunction(&m_noop, m_helpers, "kwb_noop");
  if (m_dirty && m_smem_optin > 0)
    m_cu.cuFuncSetAttribute(m_dirty, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, m_smem_optin);
  return true;
}

nlohmann::json GpuRunner::load(const nlohmann::json& cmd) {
  std::string error;
  if (!init(error)) return reply_error("[no_device] " + error);
  if (cmd.contains("so")) return load_launcher(cmd);
  if (m_launcher) return reply_error("this session runs a cuda-launcher candidate");
  std::string path = cmd.at("cubin").get<std::string>();
  std::ifstream in(path, std::ios::binary);
  if (!in) return reply_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string image = ss.str();
  if (m_module) m_cu.cuModuleUnload(m_module);
  m_module = nullptr;
  m_strict_l2 = cmd.value("strict_l2", false);
  m_kernels.clear();
  m_dims.clear();
  m_args_dirty = true;
  if (auto rc = m_cu.cuModuleLoadData(&m_module, image.data()); rc != CUDA_SUCCESS) {
    m_module = nullptr;
    std::string hint = rc == CUDA_ERROR_NO_BINARY_FOR_GPU || rc == CUDA_ERROR_INVALID_IMAGE
                           ? " (compiled for another architecture? pass --gpu-arch sm_XY[a] for this device)"
                           : "";
    return reply_error("[launch] cannot load the compiled module: " + m_cu.describe(rc) + hint);
  }
  nlohmann::json info = nlohmann::json::array();
  for (const auto& k : cmd.at("kernels")) {
    Kernel kernel;
    kernel.name = k.at("name").get<std::string>();
    for (const auto& a : k.at("args")) {
      std::string kind = a.at(0).get<std::string>();
      kernel.args.push_back({kind == "tensor"   ? KernelArg::Kind::tensor
                             : kind == "param"  ? KernelArg::Kind::param
                             : kind == "scalar" ? KernelArg::Kind::scalar
                                                : KernelArg::Kind::workspace,
                             a.at(1).get<int>()});
    }
    if (m_cu.cuModuleGetFunction(&kernel.fn, m_module, kernel.name.c_str()) != CUDA_SUCCESS)
      return reply_error("[launch] kernel '" + kernel.name + "' not found in the compiled module: define it as "
                         "extern \"C\" __global__ (C++ names are mangled)");
    if (m_cu.cuFuncGetParamInfo) {
      size_t count = 0, offset = 0, size = 0;
      while (m_cu.cuFuncGetParamInfo(kernel.fn, count, &offset, &size) == CUDA_SUCCESS) {
        if (count < kernel.args.size()) {
          const auto kind = kernel.args[count].kind;
          bool pointer = kind != KernelArg::Kind::param && kind != KernelArg::Kind::scalar;
          if ((pointer && size != 8) || (kind == KernelArg::Kind::param && size != 8 && size != 4) ||
              (kind == KernelArg::Kind::scalar && size != 8))
            return reply_error("[launch] kernel '" + kernel.name + "': parameter " + std::to_string(count + 1) +
                               " has " + std::to_string(size) + " bytes; tensors and workspace are pointers, params "
                               "int64_t (long long), scalars double");
        }
        ++count;
      }
      if (count != kernel.args.size())
        return reply_error("[launch] kernel '" + kernel.name + "' takes " + std::to_string(count) +
                           " parameters but its kwb:launch line passes " + std::to_string(kernel.args.size()));
    }
    m_cu.cuFuncGetAttribute(&kernel.max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel.fn);
    m_cu.cuFuncGetAttribute(&kernel.static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel.fn);
    m_cu.cuFuncGetAttribute(&kernel.regs, CU_FUNC_ATTRIBUTE_NUM_REGS, kernel.fn);
    m_cu.cuFuncGetAttribute(&kernel.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, kernel.fn);
    info.push_back({{"name", kernel.name},
                    {"registers", kernel.regs},
                    {"static_smem", kernel.static_smem},
                    {"local_bytes", kernel.local_bytes},
                    {"max_threads", kernel.max_threads}});
    m_kernels.push_back(std::move(kernel));
  }
  return {{"ok", true}, {"kernels", info}};
}

nlohmann::json GpuRunner::map(const nlohmann::json& cmd) {
  std::string error;
  if (!init(error)) return reply_error("[no_device] " + error);
  size_t bytes = cmd.at("shm_bytes").get<size_t>();
  // The arena's file only grows: a mapping (and its page-locking) that covers the new layout is
  // kept. Mapping and pinning hundreds of MB again for every workload took tens of ms with the
  // GPU held (docs/benchmarks/h200.md "Candidates per minute").
  if (!m_host || bytes > m_mapped) {
    unmap();
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m_shm_fd, 0);
    if (p == MAP_FAILED) return reply_error(std::string("mmap of the shared buffers failed: ") + std::strerror(errno));
    m_host = static_cast<char*>(p);
    m_mapped = bytes;
    // Page-locked, the arena's copies run at the bus's speed instead of through the driver's
    // staging buffers (several times faster for the large bench workloads). Optional: where the
    // driver refuses (or lacks the call), copies stay pageable.
    if (m_cu.cuMemHostRegister && m_cu.cuMemHostUnregister)
      m_pinned = m_cu.cuMemHostRegister(m_host, m_mapped, 0) == CUDA_SUCCESS;
  }
  m_buffers.clear();
  for (const auto& b : cmd.at("buffers")) {
    ArenaBuffer buf{b.at("offset").get<size_t>(), b.at("bytes").get<size_t>(), b.at("output").get<bool>()};
    if (buf.offset + buf.bytes > bytes) return reply_error("buffer outside the shared buffers' layout");
    m_buffers.push_back(buf);
  }
  m_params = cmd.at("params").get<std::vector<int64_t>>();
  m_scalars = cmd.value("scalars", std::vector<double>{});
  if (bytes > m_arena_cap) {
    if (m_arena) m_cu.cuMemFree(m_arena);
    m_arena = 0;
    m_arena_cap = 0;
    if (auto s = check(m_cu.cuMemAlloc(&m_arena, bytes), "allocating " + std::to_string(bytes) + " device bytes");
        !s.empty())
      return reply_error(s);
    m_arena_cap = bytes;
  }
  if (const char* v = std::getenv("KWB_GPU_SEPARATE_BUFFERS"); v && std::string(v) == "1") m_separate_mode = true;
  if (m_separate_mode)
    if (auto s = allocate_separate(); !s.empty()) return reply_error(s);
  m_args_dirty = true;
  return {{"ok", true}, {"pinned", m_pinned}};
}

void GpuRunner::unmap() {
  if (!m_host) return;
  if (m_pinned) m_cu.cuMemHostUnregister(m_host);
  m_pinned = false;
  ::munmap(m_host, m_mapped);
  m_host = nullptr;
  m_mapped = 0;
}

nlohmann::json GpuRunner::dims(const nlohmann::json& cmd) {
  std::string error;
  if (!init(error)) return reply_error("[no_device] " + error);
  const auto& launches = cmd.at("launches");
  if (launches.size() != m_kernels.size()) return reply_error("dims: one entry per kernel of the loaded plan expected");
  m_dims.clear();
  nlohmann::json occupancy = nlohmann::json::array();
  for (size_t i = 0; i < launches.size(); ++i) {
    LaunchDims d;
    for (int a = 0; a < 3; ++a) {
      d.grid[a] = launches[i].at("grid").at(a).get<unsigned>();
      d.block[a] = launches[i].at("block").at(a).get<unsigned>();
    }
    d.smem = launches[i].at("smem").get<unsigned>();
    const Kernel& k = m_kernels[i];
    unsigned threads = d.block[0] * d.block[1] * d.block[2];
    if (threads > unsigned(k.max_threads))
      return reply_error("[launch] kernel '" + k.name + "': a block of " + std::to_string(threads) +
                         " threads exceeds what it can run (" + std::to_string(k.max_threads) + " with " +
                         std::to_string(k.regs) + " registers per thread)");
    if (int64_t(d.smem) + k.static_smem > m_smem_optin)
      return reply_error("[launch] kernel '" + k.name + "': " + std::to_string(d.smem) + " bytes of dynamic plus " +
                         std::to_string(k.static_smem) + " of static shared memory exceed the device's " +
                         std::to_string(m_smem_optin) + " per block");
    if (d.smem > 48 * 1024)
      if (auto s = check(m_cu.cuFuncSetAttribute(k.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(d.smem)),
                         "[launch] kernel '" + k.name + "': raising its dynamic shared memory limit");
          !s.empty())
        return reply_error(s);
    m_dims.push_back(d);
    // The driver's occupancy at this shape (docs/verdict.md "Compiler facts"), where it has the call.
    int blocks = 0;
    if (m_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor &&
        m_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.fn, int(threads), d.smem) == CUDA_SUCCESS)
      occupancy.push_back(blocks);
  }
  m_workspace_bytes = cmd.value("workspace_bytes", size_t(0));
  if (m_workspace_bytes > m_workspace_cap) {
    if (m_workspace) m_cu.cuMemFree(m_workspace);
    m_workspace = 0;
    m_workspace_cap = 0;
    if (auto s = check(m_cu.cuMemAlloc(&m_workspace, m_workspace_bytes), "allocating the workspace"); !s.empty())
      return reply_error(s);
    m_workspace_cap = m_workspace_bytes;
  }
  m_args_dirty = true;
  nlohmann::json reply = {{"ok", true}};
  if (occupancy.size() == m_dims.size()) reply["occupancy"] = occupancy;
  return reply;
}

std::string GpuRunner::prepare_args() {
  if (!m_args_dirty) return {};
  if (m_launcher) return m_host ? prepare_launcher_args() : "call before load/map";
  if (m_dims.size() != m_kernels.size() || !m_host) return "call before load/map/dims";
  m_arg_values.assign(m_kernels.size(), {});
  m_arg_ptrs.assign(m_kernels.size(), {});
  for (size_t i = 0; i < m_kernels.size(); ++i) {
    auto& values = m_arg_values[i];
    for (const auto& a : m_kernels[i].args) {
      if (a.kind == KernelArg::Kind::tensor) {
        if (size_t(a.index) >= m_buffers.size()) return "tensor index out of range";
        values.push_back(uint64_t(buffer_ptr(size_t(a.index))));
      } else if (a.kind == KernelArg::Kind::param) {
        if (size_t(a.index) >= m_params.size()) return "param index out of range";
        values.push_back(uint64_t(m_params[size_t(a.index)]));
      } else if (a.kind == KernelArg::Kind::scalar) {
        if (size_t(a.index) >= m_scalars.size()) return "scalar index out of range";
        values.push_back(std::bit_cast<uint64_t>(m_scalars[size_t(a.index)]));
      } else {
        values.push_back(uint64_t(m_workspace_bytes ? m_workspace : 0));
      }
    }
    for (auto& v : values) m_arg_ptrs[i].push_back(&v);
  }
  m_args_dirty = false;
  return {};
}

}  // namespace kwb::gpu
