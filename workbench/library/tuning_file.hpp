#pragma once
// `kwb tuning export/import`: tuning records as a validated text file, like PyTorch TunableOp's
// results file and MIOpen's perf-db — a header of identity fields, then one tab-separated row
// per op/variant/workload/kernel/config (docs/library.md):
//
//   # kwb.tuning.v1
//   Validator: device=AMD EPYC (2 logical CPUs), 1 thread
//   Validator: toolchain=g++ 12.2.0 -std=c++20 -O3 ...
//   Validator: workbench=0.1.0
//   Validator: spec_version=1          (optional: 1 when absent, as in files of older workbenches)
//   vector_add<TAB>f32<TAB>cpu<TAB>n1M<TAB>{"n":1048576}<TAB><sha256><TAB>{}<TAB>464762<TAB>0.4<TAB>57
//
// A new block of Validator lines starts the records of another identity.
#include <string>
#include <vector>

#include "store/tuning_repository.hpp"
#include "util/error.hpp"

namespace kwb::library {

std::string tuning_file_text(const std::vector<store::TuningRecord>& records);
// Errors name `where`, the line and the column: "tuning.tsv:7: median_ns: expected a positive number".
util::Result<std::vector<store::TuningRecord>> parse_tuning_file(const std::string& text, const std::string& where);

}  // namespace kwb::library
