#pragma once
// The device-side view of CUDA that `cuda` candidates are parsed against: NVRTC's, rather than
// clang's CUDA runtime wrapper (docs/analysis.md, "Parse set-up"). The wrapper pulls in the
// definitions of every CUDA device function (thousands of inline bodies: a ~20 ms floor per parse
// even precompiled); NVRTC builds them in, and the analysis needs only their declarations. The
// prelude includes the toolkit's own cuda_runtime.h the way NVRTC sees it (__CUDACC_RTC__), with
// the definition files (*.hpp) left out, so the declarations stay the toolkit's, not a copy.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kwb::analysis {

// CUDART_VERSION of the toolkit's headers (13000 for 13.0); nullopt when it cannot be read.
std::optional<int> cudart_version(const std::filesystem::path& cuda_path);

// The prelude header for a toolkit version; `fp` adds <cuda_fp16.h> <cuda_bf16.h> <mma.h>.
std::string cuda_prelude(int cudart_version, bool fp);

// Headers NVRTC has built in that the toolkit's headers include in NVRTC mode: (name, text).
std::vector<std::pair<std::string, std::string>> nvrtc_stub_headers();

// Whether a source is parsed with the prelude: every header it includes is one known to parse
// with it (others, such as cooperative_groups or cub, expect a host compiler's standard library;
// such sources are parsed with clang's wrapper). Only a matter of speed: a source that does not
// parse with the prelude is parsed again with the wrapper.
bool prelude_fits(std::string_view source);
// Whether a source includes the half-precision or WMMA headers (the larger precompiled prelude).
bool prelude_fp(std::string_view source);

}  // namespace kwb::analysis
