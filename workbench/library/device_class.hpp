#pragma once
// Device classes of dispatch.json (docs/library.md "Device classes"): which kind of device a
// promoted kernel was measured on, and so which machines it is the incumbent for.
//
//   "any"              seeded kernels: portable, built for the compiler's default target
//   "cpu-x86_64-v<N>"  a CPU kernel compiled with -march=native on an x86-64 CPU of
//                      microarchitecture level N (1 = baseline x86-64, 2 = SSE4.2/POPCNT,
//                      3 = AVX2/FMA/BMI2, 4 = AVX-512 F/BW/CD/DQ/VL): it needs level N to run
//   "cpu-<arch>"       a CPU kernel compiled with -march=native on another architecture
//   "cuda-sm_<NN>"     a CUDA kernel measured on a GPU of that compute capability
//   "cpu-x86_64"       legacy (written before the level was recorded): read as the x86-64 class
//                      being looked up — an incumbent there when that class has no entry of its own
#include <string>
#include <string_view>

namespace kwb::library {

inline constexpr std::string_view k_legacy_x86_class = "cpu-x86_64";

// The x86-64 microarchitecture level of the CPU this process runs on (1..4; the OS must enable
// the AVX/AVX-512 register state), or 0 on another architecture.
int host_x86_level();
// The class of CPU kernels compiled here: "cpu-x86_64-v3" on an AVX2 machine, "cpu-aarch64", ...
std::string host_cpu_class();
// N of "cpu-x86_64-v<N>"; 0 for any other class (legacy "cpu-x86_64" included).
int x86_level_of(std::string_view device_class);
// Whether `device_class` is one a kernel can be recorded or exported under: "any",
// "cpu-x86_64-v1".."cpu-x86_64-v4", "cpu-<arch>" of another architecture, "cuda-sm_<NN>";
// an empty string when it is, else why not.
std::string why_not_a_device_class(std::string_view device_class);

}  // namespace kwb::library
