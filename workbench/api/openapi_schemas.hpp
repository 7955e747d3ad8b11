#pragma once
// The component schemas of /openapi.json (JSON Schema 2020-12, as OpenAPI 3.1 takes them): every
// request body, every success response and the error object. Shapes only: the prose is in
// docs/api.md, docs/verdict.md and docs/specs.md.
#include <nlohmann/json.hpp>

namespace kwb::api {
nlohmann::json openapi_schemas();
// The candidate's part of them (api/openapi_candidate_schemas.cpp): Candidate, Verdict and its
// parts, the attempts (Lineage, Attempts).
nlohmann::json candidate_schemas();
// LibraryReport (api/openapi_report_schemas.cpp).
nlohmann::json library_report_schemas();
}
