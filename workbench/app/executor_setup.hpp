#pragma once
// The device executor `kwb serve` runs compiled candidates on (the executor setting,
// docs/fleet.md): null for local (the pipeline's own device lanes), else the Slurm executor
// configured from the slurm-* settings.
#include <memory>

#include "exec/executor.hpp"
#include "store/database.hpp"
#include "util/settings.hpp"

namespace kwb::app {

util::Result<std::shared_ptr<exec::DeviceExecutor>> make_executor(const util::Settings& settings, store::Database& db);

}  // namespace kwb::app
