#pragma once
// A candidate's form, its backend (docs/architecture.md "Candidate forms"): the one table of its
// names ("cpu", "cuda", "cuda-launcher", as the API, the verdict, dispatch.json, tuning files and
// the store spell them) and what each form implies. Structs that are serialized keep the name as a
// string; code that decides by the form asks these functions instead of comparing names.
#include <optional>
#include <string>
#include <string_view>

namespace kwb::core {

enum class Backend { cpu, cuda, cuda_launcher };

inline constexpr Backend k_backends[] = {Backend::cpu, Backend::cuda, Backend::cuda_launcher};

std::string_view backend_name(Backend b);
std::optional<Backend> parse_backend(std::string_view name);
// "cpu, cuda, cuda-launcher": the names for a message that lists them.
std::string backend_list();

// cuda and cuda-launcher: runs on a GPU (a GPU lane, a GPU partition, the GPU runner).
bool on_gpu(Backend b);
// cuda-launcher: its own host code shares the GPU runner's process, so it could forge the times it
// reports; only a reviewer promotes it, never auto-promote or CI (docs/architecture.md "Candidate
// forms", docs/library.md "Promotion").
bool reviewer_only(Backend b);
// The file extension of the form's source: ".cpp" (cpu) or ".cu".
std::string_view source_extension(Backend b);

// The same, by a backend's name as a serialized struct holds it: false for a name that is none.
inline bool on_gpu(std::string_view name) {
  auto b = parse_backend(name);
  return b && on_gpu(*b);
}
inline bool reviewer_only(std::string_view name) {
  auto b = parse_backend(name);
  return b && reviewer_only(*b);
}
// Whether `name` names backend `b`.
inline bool is_backend(std::string_view name, Backend b) { return parse_backend(name) == b; }

}  // namespace kwb::core
