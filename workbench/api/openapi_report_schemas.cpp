// The scorecard's schema in /openapi.json: LibraryReport, GET /v1/library/report's reply and the
// `kwb library report --json` document (kwb.library_report.v1, docs/library.md "Scorecard").
#include "api/openapi_schemas.hpp"
#include "api/schema_parts.hpp"
#include "library/scorecard.hpp"

namespace kwb::api {

nlohmann::json library_report_schemas() {
  using namespace schema;
  json rival = obj({{"name", str()}, {"kind", str_enum({"baseline", "library"})}, {"ns", or_null(number())},
                    {"status", {{"type", "string"}, {"description", "measured, not_timed, or the rival's verdict status"}}}});
  json roofline = obj({{"pct_bw", or_null(number())}, {"pct_flops", or_null(number())},
                       {"pct_bw_sheet", or_null(number())}, {"pct_flops_sheet", or_null(number())},
                       {"bound", {{"type", "string"}, {"description", "the roof that binds: memory, compute, or empty"}}},
                       {"pct_roof", or_null(number())}, {"pct_roof_sheet", or_null(number())}});
  json row = obj({{"op", str()}, {"variant", str()}, {"backend", str()}, {"device_class", str()}, {"workload", str()},
                  {"kernel", str()}, {"source_sha256", str()},
                  {"status", str_enum({"measured", "no_device", "failed", "not_measured"})}, {"reason", str()},
                  {"incumbent_ns", or_null(number())}, {"stderr_pct", or_null(number())}, {"samples", integer()},
                  {"rivals", arr(rival)},
                  {"fastest", or_null(obj({{"name", str()}, {"kind", str()}, {"ns", number()}}))},
                  {"vs_fastest", {{"type", json::array({"number", "null"})},
                                  {"description", "the fastest rival's time over the incumbent's (> 1: the incumbent is faster)"}}},
                  {"roofline", roofline}, {"device", str()}, {"measured_at", str()},
                  {"stale", {{"type", "boolean"}, {"description", "the library's head names another incumbent since"}}},
                  {"region", {{"type", "string"},
                              {"description", "the incumbent's shape region (\"n in [1, 1500000]\"); absent: the "
                                              "whole space (docs/library.md \"Shape regions\")"}}}},
                 {"region"});
  json family = obj({{"op", str()}, {"rows", integer()}, {"compared", integer()}, {"at_bar", integer()},
                     {"unrivalled", integer()}, {"share_at_bar", or_null(number())},
                     {"geomean_vs_fastest", or_null(number())}});
  json below = obj({{"op", str()}, {"variant", str()}, {"backend", str()}, {"device_class", str()}, {"workload", str()},
                    {"kernel", str()}, {"vs_fastest", number()}, {"gap_pct", number()}, {"fastest", str()}});
  json source = obj({{"kind", str_enum({"measured", "stored", "none"})}, {"detail", str()},
                     {"measured_at", str()}, {"age_s", or_null(integer())}, {"devices", arr(str())},
                     {"library_commit", str()}, {"head", str()}, {"file", str()}},
                    {"measured_at", "age_s", "devices", "library_commit", "head", "file"});
  return {{"LibraryReport",
           obj({{"schema", {{"const", library::k_report_schema}}}, {"source", source}, {"bar", number()},
                {"rows", arr(row)}, {"families", arr(family)}, {"below_bar", arr(below)},
                {"totals", obj({{"rows", integer()}, {"compared", integer()}, {"at_bar", integer()},
                                {"share_at_bar", or_null(number())}})}})}};
}

}  // namespace kwb::api
