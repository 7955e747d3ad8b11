#pragma once
// Everything the HTTP routes need, owned by `kwb serve`.
#include <chrono>
#include <memory>
#include <string>

#include "api/auth.hpp"
#include "api/http_limits.hpp"
#include "exec/event_hub.hpp"
#include "exec/intake.hpp"
#include "exec/pipeline.hpp"
#include "library/curator.hpp"
#include "library/spec_intake.hpp"
#include "spec/loader.hpp"
#include "store/database.hpp"
#include "store/janitor.hpp"
#include "store/object_store.hpp"

namespace kwb::api {

struct ApiLimits {
  size_t max_body_bytes = 1 << 20;     // request bodies (sources and quotas: exec::IntakeConfig)
  double rate_per_s = 50;              // requests per second per token (token bucket)
  double burst = 100;
  std::chrono::milliseconds heartbeat{15000};  // SSE comment lines
  int max_wait_s = 60;                 // ?wait= long-poll cap
  GateLimits http;                     // connections, timeouts, header sizes (api/http_limits.hpp)
};

struct ApiContext {
  store::Database& db;
  store::ObjectStore& objects;
  const spec::Catalog& catalog;
  exec::Pipeline& pipeline;  // cancellation and the lanes' state
  exec::Intake& intake;      // submissions and profile re-runs (and what the daemon evaluates)
  exec::EventHub& hub;
  Authenticator& auth;
  RateLimiter& limiter;
  ApiLimits limits;
  // This host's GPUs as start-up found them (docs/architecture.md "Lanes"): lane, ordinal,
  // pci_bus_id, uuid, name, device_id (its calibration's), status (ready | unusable | unused), reason.
  nlohmann::json gpus = nlohmann::json::array();
  library::Curator* curator = nullptr;          // null: no library (the library routes answer 503)
  library::SpecIntake* spec_intake = nullptr;   // null: specs cannot be added (POST /v1/specs answers 503)
  const store::Janitor* janitor = nullptr;      // free space and the reserve, for /v1/health
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

}  // namespace kwb::api
