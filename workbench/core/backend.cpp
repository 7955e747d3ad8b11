#include "core/backend.hpp"

#include <array>
#include <utility>

namespace kwb::core {

namespace {

constexpr std::array<std::pair<Backend, std::string_view>, 3> k_backend_names = {{
    {Backend::cpu, "cpu"},
    {Backend::cuda, "cuda"},
    {Backend::cuda_launcher, "cuda-launcher"},
}};

}  // namespace

std::string_view backend_name(Backend b) {
  for (const auto& [backend, name] : k_backend_names)
    if (backend == b) return name;
  return "cpu";
}

std::optional<Backend> parse_backend(std::string_view name) {
  for (const auto& [backend, n] : k_backend_names)
    if (n == name) return backend;
  return std::nullopt;
}

std::string backend_list() {
  std::string out;
  for (const auto& [backend, name] : k_backend_names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

bool on_gpu(Backend b) { return b == Backend::cuda || b == Backend::cuda_launcher; }

bool reviewer_only(Backend b) { return b == Backend::cuda_launcher; }

std::string_view source_extension(Backend b) { return b == Backend::cpu ? ".cpp" : ".cu"; }

}  // namespace kwb::core
