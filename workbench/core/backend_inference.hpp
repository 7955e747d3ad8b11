#pragma once
// The backend a candidate file is, when none is given (`kwb eval`, `kwb submit`): a .cu file is
// the `cuda` form (kernels + a kwb:launch plan), or `cuda-launcher` when it has no kwb:launch
// line and names a cudaStream_t (a host entry); anything else is `cpu`.
#include <string_view>

#include "core/backend.hpp"

namespace kwb::core {

inline Backend infer_backend(std::string_view file_name, std::string_view source) {
  if (!file_name.ends_with(source_extension(Backend::cuda))) return Backend::cpu;
  bool launcher = source.find("kwb:launch") == std::string_view::npos && source.find("cudaStream_t") != std::string_view::npos;
  return launcher ? Backend::cuda_launcher : Backend::cuda;
}

}  // namespace kwb::core
