#pragma once
// One line per pipeline stage for `kwb submit --wait` and `kwb status --wait`:
//   "  compile   done    g++ 12.2.0, 412 ms"
//   "  validate  failed  incorrect: workload n7: ..."
#include <optional>
#include <string>

#include "client/follow.hpp"

namespace kwb::client {

class StageLines {
 public:
  // The line this event completes, if any.
  std::optional<std::string> on_event(const CandidateEvent& e);

 private:
  std::string m_open;  // a stage that started and has not finished
};

}  // namespace kwb::client
