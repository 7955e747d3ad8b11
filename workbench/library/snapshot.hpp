#pragma once
// The library as one commit sees it: the head commit id and its parsed dispatch.json.
#include <string>

#include "library/dispatch.hpp"
#include "library/repository.hpp"

namespace kwb::library {

struct Snapshot {
  std::string commit;
  Dispatch dispatch;
};

// The head commit and its dispatch.json (errors name the repository or the JSON path).
util::Result<Snapshot> read_head(Repository& repo);

}  // namespace kwb::library
