#pragma once
// The SASS instruction mix of each function of a disassembled cubin (docs/verdict.md "Compiler
// facts"): what nvdisasm -c or cuobjdump --dump-sass printed, read on the trusted side. The text
// comes from a tool that read untrusted bytes (in the sandbox), so it is treated as untrusted:
// only lines of the known shapes count and what is read is capped.
#include <map>
#include <string>
#include <string_view>

#include "core/feedback.hpp"

namespace kwb::build {

// Per function: nvdisasm's `.section .text.NAME` / `.text.NAME:` and cuobjdump's
// `Function : NAME` start one; each `/*0040*/ [@P0] OPCODE ... ;` line counts into it.
std::map<std::string, core::SassMix> scan_sass(std::string_view sass);

// Counts one opcode ("LDG.E.128.CONSTANT", without predicate) into `m`.
void count_sass_opcode(std::string_view opcode, core::SassMix& m);

}  // namespace kwb::build
