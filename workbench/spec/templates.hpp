#pragma once
// Candidate templates (docs/specs.md "Templates"): a spec folder may ship, per variant and
// backend, a simple correct kernel a new agent starts from:
//   template.<variant>.cpp           cpu
//   template.<variant>.cu            cuda (extern "C" __global__ kernels + a kwb:launch plan)
//   template.<variant>.launcher.cu   cuda-launcher
// Where it ships none, the workbench writes a skeleton from the prototype alone (it compiles,
// and its body is left to write). Templates are descriptive: they are not part of the meaning
// digest, and `kwb spec check` evaluates each shipped one like a candidate.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/spec.hpp"
#include "util/error.hpp"

namespace kwb::spec {

bool is_template_file(std::string_view name);
// The file name of a backend's template for a variant, e.g. "template.f32.launcher.cu".
std::string template_file_name(std::string_view backend, std::string_view variant);
// {backend, variant} of a template file name; nullopt when the name has none of the three forms.
std::optional<std::pair<std::string, std::string>> template_role(std::string_view name);

// Reads every template.* file of `folder` into spec.templates; a name of no known form or for an
// unknown variant is an error naming the file.
util::Result<void> read_templates(const std::filesystem::path& folder, core::Spec& spec);

struct CandidateTemplate {
  std::string source;
  std::string file;       // the shipped file, or "" for a generated skeleton
  bool complete = false;  // true: a correct kernel shipped with the spec; false: a skeleton to fill in
};

// The shipped template, else a skeleton: the prototype (and for cuda a one-launch plan passing
// every tensor and param), with the body to write.
CandidateTemplate candidate_template(const core::Spec& spec, const core::Variant& v, std::string_view backend);

}  // namespace kwb::spec
