#pragma once
// A candidate kernel as submitted: one source file plus what it claims to implement.
#include <string>
#include <vector>

namespace kwb::core {

struct Candidate {
  std::string id;           // daemon id, or the source path for `kwb eval`
  std::string op;
  std::string variant;      // empty: inferred from the entry symbol the source defines
  std::string backend = "cpu";  // "cpu" | "cuda" | "cuda-launcher"
  std::string source;
  std::string source_name;  // file name shown in diagnostics
  std::vector<std::string> flags;  // extra compiler flags (checked)
  std::string note;
  bool profile = false;  // asked for a profile (verdict.profile, docs/verdict.md "Profiles")
};

}  // namespace kwb::core
