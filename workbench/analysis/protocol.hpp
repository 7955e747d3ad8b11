#pragma once
// Wire format between analyze() and the kwb-analyzer worker: one JSON object per line each way.
//   request:  {"kind": "analyze", "request": {...}}  |  {"kind": "warm_up", "backend": "cpu"}
//   response: {"report": {...}}                     |  {"warm": true}
// A request carries only the parts of the spec the checks read (signature and dtypes).
#include <nlohmann/json.hpp>

#include "analysis/analyzer.hpp"
#include "util/error.hpp"

namespace kwb::analysis::detail {

// A Request that owns its spec and variant (the worker's side).
struct OwnedRequest {
  core::Spec spec;
  core::Variant variant;
  std::string backend, source, display_name;
  std::vector<std::string> kernel_names, flags;
  std::vector<KernelLaunch> launches;

  Request view() const {
    return Request{spec, variant, backend, source, display_name, kernel_names, flags, launches};
  }
};

nlohmann::json request_to_json(const Request& r);
util::Result<OwnedRequest> request_from_json(const nlohmann::json& j);
nlohmann::json report_to_json(const Report& r);
util::Result<Report> report_from_json(const nlohmann::json& j);

}  // namespace kwb::analysis::detail
