#pragma once
// Compiler facts of a cuda-form candidate's config (docs/verdict.md "Compiler facts"), read on
// the trusted side from what the sandboxed NVRTC worker returned: ptxas's verbose report in the
// program log (registers, spills, stack frame, static shared memory, barriers; the worker
// compiles with --ptxas-options=-v) and the PTX (instruction mix, .maxntid). Both are untrusted
// text: the parsers read only what they recognise and cap what they read.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/feedback.hpp"

namespace kwb::build {

// Per entry function: registers, spill_*_bytes, stack_frame_bytes, static_smem_bytes, barriers
// (name, instructions, occupancy and max_threads_per_block are left for the caller).
std::map<std::string, core::KernelFacts> parse_ptxas_info(std::string_view log);

struct PtxEntry {
  core::InstructionMix mix;
  int maxntid = 0;  // threads of `.maxntid x, y, z` (__launch_bounds__), 0 when absent
};
// Per `.entry` of the PTX: its instruction mix and launch bound.
std::map<std::string, PtxEntry> scan_ptx(std::string_view ptx);

// The facts of one config's kernels, in plan order (a kernel the log or PTX does not mention
// keeps zeros). max_threads_per_block comes from the registers and .maxntid for `arch`.
core::ConfigFacts config_facts(const std::string& config, const std::string& arch, std::string_view log,
                               std::string_view ptx, const std::vector<std::string>& kernels);

// The facts of a cuda-launcher candidate (one "default" config): every kernel ptxas reports in
// nvcc's -Xptxas -v output, by (mangled) name. Its launch shapes are the host code's, unknown
// here: no occupancy entries and no instruction mix.
core::ConfigFacts launcher_facts(const std::string& arch, std::string_view report);

// The lines of a compiler log that are ptxas's verbose report (what launcher_facts reads; the
// compile cache keeps them beside the object).
std::string ptxas_report_lines(std::string_view log);

}  // namespace kwb::build
