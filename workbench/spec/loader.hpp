#pragma once
// Loading and validating spec files (docs/specs.md). Every error names the file, the field
// (as a JSON path such as `workloads.test[2].params.cols`) and the reason.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "spec/catalog.hpp"  // Catalog, which most users of the loader need
#include "util/error.hpp"

namespace kwb::spec {

// Parses JSON text (// and /* */ comments allowed) into a validated Spec.
// `file` is used in error messages and stored in Spec::file.
util::Result<core::Spec> parse_spec(std::string_view text, const std::filesystem::path& file);
util::Result<core::Spec> load_spec(const std::filesystem::path& file);

// Shape of tensor `t` for the workload params, evaluated; errors name the spec and tensor.
util::Result<std::vector<int64_t>> tensor_shape(const core::Spec& spec, const core::TensorSpec& t,
                                                const std::map<std::string, int64_t>& params);

// A selection of bench workloads (a submission's "bench", `--bench`): every name must be a bench
// workload of the spec that runs on `backend`; the error lists the ones there are.
util::Result<void> check_bench_selection(const core::Spec& spec, std::string_view backend,
                                         const std::vector<std::string>& names);

}  // namespace kwb::spec
