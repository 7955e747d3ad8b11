#pragma once
// A copy of the fake CUDA driver presenting N GPUs of one model (fake_driver/fake_libcuda.cpp:
// fake_gpu_count, fake_gpu_fail_warmup, fake_gpu_busy_<i> beside the library).
#include <filesystem>
#include <fstream>
#include <string>

namespace kwb::test {

struct FakeGpus {
  // Copies the driver into `dir` for `count` GPUs, those in `fail_warmup` (e.g. "1 3") failing
  // the runner's warm-up; with `busy_checks`, a GPU used by two processes at once fails them.
  static std::filesystem::path make(const std::filesystem::path& dir, int count, const std::string& fail_warmup = "",
                                    bool busy_checks = true) {
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(KWB_TEST_FAKE_LIBCUDA, dir / "libcuda.so.1",
                               std::filesystem::copy_options::overwrite_existing);
    std::ofstream(dir / "fake_gpu_count") << count << "\n";
    // A model with a data sheet: the physics floor is the sheet's, not a calibration measured on
    // a busy CPU that an emulated kernel can beat.
    std::ofstream(dir / "fake_gpu_name") << "NVIDIA H200\n";
    if (!fail_warmup.empty()) std::ofstream(dir / "fake_gpu_fail_warmup") << fail_warmup << "\n";
    if (busy_checks)
      for (int i = 0; i < count; ++i) std::ofstream(dir / ("fake_gpu_busy_" + std::to_string(i)));
    return dir / "libcuda.so.1";
  }
  // The fake's PCI bus id of GPU i.
  static std::string bus_id(int i) {
    char s[32];
    std::snprintf(s, sizeof s, "0000:%02x:00.0", 0x10 + i);
    return s;
  }
};

}  // namespace kwb::test
