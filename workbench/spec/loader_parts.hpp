#pragma once
// Private to kwb::spec: the sections of a spec file, each read and validated into core::Spec.
// Each returns false after recording the first error in the Reader. They run in file order of
// dependence: params and tensors first, then variants (need tensors), distributions (need the
// variants' dtypes), workloads (need everything, to evaluate shapes and rooflines), baselines
// (need the variants), shapes (need everything before them).
#include <map>
#include <string>
#include <string_view>

#include "core/spec.hpp"
#include "spec/json_reader.hpp"
#include "util/error.hpp"

namespace kwb::spec::detail {

// A shape or roofline expression: a string (or an integer) that parses and uses only
// declared params. `out` receives its text.
bool read_expression(Reader& r, const Json& j, const std::string& path, const core::Spec& spec, std::string& out);

bool read_variants(Reader& r, const Json& j, const std::string& path, core::Spec& spec);
bool read_distributions(Reader& r, const Json& j, const std::string& path, core::Spec& spec);
bool read_workloads(Reader& r, const Json& j, const std::string& path, core::Spec& spec);
// Optional vendor baselines (need the variants); reads each source file from the folder of
// spec.file into Baseline::source.
bool read_baselines(Reader& r, const Json& j, const std::string& path, core::Spec& spec);

// A relative path inside the spec's folder naming a readable, non-empty .cu file (`what` names
// it in errors, "a cuda-launcher source"): the path goes to `file`, its text to `source`.
bool read_source_file(Reader& r, const Json& j, const std::string& path, const core::Spec& spec,
                      std::string_view what, std::string& file, std::string& source);

// Optional GPU reference (needs the variants and the workloads); sets spec.gpu_reference.
bool read_gpu_reference(Reader& r, const Json& j, const std::string& path, core::Spec& spec);

// Optional param ranges for drawn test workloads (need params, tensors, variants and the test
// workloads); sets spec.shapes.
bool read_shapes(Reader& r, const Json& j, const std::string& path, core::Spec& spec);

// Set rules fit the shapes for `params` (the leading dimensions of the index output and its input
// are equal, a row of indices is no longer than a row of the input); the error's `where` is
// "tensors[i].set.of", its message names `workload`.
util::Result<void> check_set_shapes(const core::Spec& spec, const std::map<std::string, int64_t>& params,
                                    std::string_view workload);

// Index of the first element of `names` equal to `name`, or -1 (for "duplicate ... (also <path>)").
long find_index(const std::vector<std::string>& names, const std::string& name);

// The spec's variant names in order (for "unknown variant ... (variants: ...)").
std::vector<std::string> variant_names(const core::Spec& spec);

}  // namespace kwb::spec::detail
