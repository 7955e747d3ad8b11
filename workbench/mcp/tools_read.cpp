// list_ops, get_spec, get_incumbent, list_candidates, leaderboard, diff_vs_incumbent,
// library_report: reads of the REST API (GET /v1/specs, /v1/library/{op}, /v1/candidates,
// /v1/leaderboard/{op}, /v1/candidates/{id}/diff, /v1/library/report), with the caller's token.
#include "mcp/tool.hpp"

namespace kwb::mcp {

namespace {

const json k_op = {{"type", "string"}, {"pattern", "^[a-z][a-z0-9_]{0,63}$"}, {"description", "an op name from list_ops"}};
const json k_id = {{"type", "string"}, {"pattern", "^c-[0-9a-f]{16}$"}, {"description", "a candidate id, e.g. \"c-0123456789abcdef\""}};
const json k_read_only = {{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}};

std::string s(const json& j, const char* key) { return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; }

ToolResult list_ops(ToolCall& call) {
  auto r = call.rest.get("/v1/specs");
  if (!r.ok()) return rest_error(r, "list_ops");
  json ops = json::array();
  std::string text = "ops (get_spec OP for the entry signature, tolerances and workloads):";
  for (const auto& sp : r.body.value("specs", json::array())) {
    json variants = json::array();
    std::string vs;
    for (const auto& v : sp.value("variants", json::array())) {
      variants.push_back({{"name", s(v, "name")}, {"entry", s(v, "entry")}});
      vs += (vs.empty() ? "" : ", ") + s(v, "name");
    }
    ops.push_back({{"op", s(sp, "op")}, {"version", sp.value("version", 0)}, {"summary", s(sp, "summary")}, {"variants", variants}});
    text += "\n- " + s(sp, "op") + " v" + std::to_string(sp.value("version", 0)) + " [" + vs + "]: " + s(sp, "summary");
  }
  return {text, {{"ops", ops}}};
}

std::string spec_text(const json& sp) {
  std::string t = s(sp, "op") + " v" + std::to_string(sp.value("version", 0)) + ": " + s(sp, "summary");
  std::string tensors;
  for (const auto& x : sp.value("tensors", json::array())) {
    std::string shape;
    for (const auto& d : x.value("shape", json::array())) shape += (shape.empty() ? "" : ", ") + (d.is_string() ? d.get<std::string>() : d.dump());
    tensors += (tensors.empty() ? "" : "; ") + s(x, "name") + " (" + s(x, "role") + ") [" + shape + "]";
  }
  t += "\ntensors in entry order: " + tensors + "; then the int64 params " + json_text(sp.value("params", json::array()));
  for (const auto& v : sp.value("variants", json::array())) {
    t += "\nvariant " + s(v, "name") + ": entry " + s(v, "entry") + ", dtypes " + json_text(v.value("dtypes", json::object())) +
         ", tolerance " + json_text(v.value("tolerance", json::object()));
    if (v.contains("prototype")) t += "\n  prototype: " + (v["prototype"].is_string() ? v["prototype"].get<std::string>() : json_text(v["prototype"]));
  }
  return t + "\n\nThe whole spec (JSON, as GET /v1/specs/" + s(sp, "op") + " returns it):\n" + json_text(sp);
}

ToolResult get_spec(ToolCall& call) {
  std::string op = call.args["op"];
  auto r = call.rest.get("/v1/specs/" + op);
  if (!r.ok()) return rest_error(r, "get_spec " + op);
  return {spec_text(r.body), r.body};
}

ToolResult get_incumbent(ToolCall& call) {
  std::string op = call.args["op"];
  auto r = call.rest.get("/v1/library/" + op);
  if (!r.ok()) return rest_error(r, "get_incumbent " + op);
  std::string backend = call.args.value("backend", ""), variant = call.args.value("variant", "");
  json entries = json::array();
  for (const auto& e : r.body.value("entries", json::array()))
    if ((backend.empty() || s(e, "backend") == backend) && (variant.empty() || s(e, "variant") == variant)) entries.push_back(e);
  if (entries.empty())
    return tool_error("get_incumbent " + op + ": the library has no incumbent" + (backend.empty() ? "" : " for backend " + backend) +
                      (variant.empty() ? "" : " variant " + variant) + " (any candidate that is correct can become the first)");
  std::string text = "incumbents of " + op + " at library commit " + s(r.body, "commit").substr(0, 12) + ":";
  for (const auto& e : entries) {
    text += "\n\n## " + s(e, "kernel") + " (" + s(e, "variant") + ", " + s(e, "backend") + ", device class " + s(e, "device_class") +
            (e.contains("region") ? ", for the params " + json_text(e["region"]) + " only (docs/library.md \"Shape regions\")" : "") + ")";
    for (const auto& c : e.value("configs", json::array()))
      if (c.contains("median_ns") && c["median_ns"].is_number())
        text += "\n" + s(c, "workload") + ": median " + std::to_string(int64_t(c["median_ns"].get<double>())) + " ns" +
                (c.value("tune", json::object()).empty() ? "" : " with " + json_text(c["tune"]));
    if (e.contains("source") && e["source"].is_string()) text += "\n```\n" + e["source"].get<std::string>() + "\n```";
  }
  return {text, {{"op", op}, {"commit", s(r.body, "commit")}, {"entries", entries}}};
}

ToolResult list_candidates(ToolCall& call) {
  std::string q = "?limit=" + std::to_string(call.args.value("limit", 20));
  for (const char* key : {"op", "state", "status"})
    if (call.args.contains(key)) q += std::string("&") + key + "=" + url_encode(call.args[key].get<std::string>());
  auto r = call.rest.get("/v1/candidates" + q);
  if (!r.ok()) return rest_error(r, "list_candidates");
  std::string text = "candidates, newest first:";
  for (const auto& c : r.body.value("items", json::array()))
    text += "\n- " + s(c, "id") + " " + s(c, "op") + " " + s(c, "backend") + " " + s(c, "state") +
            (c.value("status", json()).is_string() ? " " + s(c, "status") : "") + (s(c, "note").empty() ? "" : " — " + s(c, "note"));
  if (r.body.value("items", json::array()).empty()) text += " none";
  return {text, {{"items", r.body.value("items", json::array())}, {"next", r.body.value("next", json())}}};
}

ToolResult leaderboard(ToolCall& call) {
  std::string op = call.args["op"];
  auto r = call.rest.get("/v1/leaderboard/" + op + "?limit=" + std::to_string(call.args.value("limit", 10)));
  if (!r.ok()) return rest_error(r, "leaderboard " + op);
  std::string text = "accepted candidates of " + op + ", best against the incumbent first:";
  for (const auto& c : r.body.value("candidates", json::array())) {
    const json g = c.value("geomean_vs_incumbent", json());
    text += "\n- " + s(c, "id") + " " + s(c, "variant") + " " + s(c, "backend") + ": " +
            (g.is_number() ? std::to_string(g.get<double>()).substr(0, 5) + "x" : "not compared") +
            (c.value("beats_incumbent", json()) == true ? ", beats the incumbent" : "");
  }
  if (r.body.value("candidates", json::array()).empty()) text += " none yet";
  return {text, r.body};
}

ToolResult diff_vs_incumbent(ToolCall& call) {
  std::string id = call.args["id"];
  auto r = call.rest.get("/v1/candidates/" + id + "/diff");
  if (!r.ok()) return rest_error(r, "diff_vs_incumbent " + id);
  const json& b = r.body;
  std::string text = "diff of " + id + " (" + s(b, "status") + ") against the incumbent " +
                     (b.value("incumbent", json()).is_object() ? s(b["incumbent"], "kernel") : std::string("(none: it would be the first)"));
  const json g = b.value("geomean_vs_incumbent", json());
  text += "\ngeomean vs incumbent: " + (g.is_number() ? std::to_string(g.get<double>()).substr(0, 5) + "x (> 1 is faster)" : std::string("not compared"));
  if (b.value("decision", json()).is_string()) text += "\ndecision: " + b["decision"].get<std::string>();
  for (const auto& w : b.value("workloads", json::array())) {
    text += "\n" + s(w, "workload") + ": candidate " + json_text(w.value("candidate_ns", json())) + " ns, incumbent " +
            json_text(w.value("incumbent_ns", json())) + " ns";
    if (w.value("comparison", json()).is_object()) text += ", " + s(w["comparison"], "label") + " " + json_text(w["comparison"].value("ratio", json()));
  }
  // Resources beside the incumbent's (docs/verdict.md "Resources"): the losses, where any.
  if (const json res = b.value("resources", json()); res.is_object()) {
    const json losses = res.value("losses", json::array());
    if (losses.empty() && !res.value("rows", json::array()).empty()) text += "\nresources: no loss against the incumbent";
    for (const auto& l : losses)
      if (l.is_string()) text += "\nresources lost: " + l.get<std::string>();
  }
  if (b.contains("diff") && b["diff"].is_string()) text += "\n\n" + b["diff"].get<std::string>();
  return {text, b};
}

// The scorecard: where the figures come from, then each op family and the rows below the bar.
ToolResult library_report(ToolCall& call) {
  auto r = call.rest.get("/v1/library/report");
  if (!r.ok()) return rest_error(r, "library_report");
  const auto& b = r.body;
  std::string text = "library scorecard (" + s(b.value("source", json::object()), "kind") + "): " +
                     s(b.value("source", json::object()), "detail");
  for (const auto& f : b.value("families", json::array()))
    text += "\n" + s(f, "op") + ": " + json_text(f.value("at_bar", json())) + "/" + json_text(f.value("compared", json())) +
            " rows at the bar, geomean vs the fastest " + json_text(f.value("geomean_vs_fastest", json()));
  for (const auto& w : b.value("below_bar", json::array()))
    text += "\nbelow the bar: " + s(w, "op") + "/" + s(w, "variant") + "/" + s(w, "backend") + " " + s(w, "workload") + " " +
            json_text(w.value("vs_fastest", json())) + "x of " + s(w, "fastest");
  return {text, b};
}

}  // namespace

void add_read_tools(std::vector<Tool>& out) {
  out.push_back({"list_ops", "List operators",
                 "Lists every operator the workbench has a spec for: its name, spec version, one-line summary and dtype variants "
                 "(each with its extern \"C\" entry symbol). Start here, then call get_spec for the op you will write a kernel for.",
                 object_schema(json::object()),
                 json::parse(R"({"type": "object", "required": ["ops"], "properties": {"ops": {"type": "array",
                   "items": {"type": "object", "required": ["op", "version", "summary", "variants"]}}}})"),
                 k_read_only, list_ops});
  out.push_back({"get_spec", "Get an operator's spec",
                 "Returns the operator's spec exactly as GET /v1/specs/{op} serves it: the entry signature of each dtype variant "
                 "(tensors as pointers in spec order, then int64 params), tensor shapes and roles, dtypes, tolerances per output, "
                 "input distributions, test and bench workloads, the roofline bytes/flops expressions, and the candidate forms. "
                 "Read it before writing a kernel: a wrong signature or symbol is rejected before anything runs.",
                 object_schema({{"op", k_op}}, {"op"}),
                 json::parse(R"({"type": "object", "required": ["op", "version", "variants"],
                   "properties": {"op": {"type": "string"}, "version": {"type": "integer"}, "variants": {"type": "array"}}})"),
                 k_read_only, get_spec});
  out.push_back({"get_incumbent", "Get the incumbent kernel",
                 "Returns the library's current kernel(s) for an op — the incumbent a candidate must beat — with its source, its "
                 "dispatch entry (variant, backend, device class, entry symbol) and its measured median time per bench workload and "
                 "device class. This is the starting point: improve on it, then submit_kernel.",
                 object_schema({{"op", k_op},
                                {"backend", {{"type", "string"}, {"enum", {"cpu", "cuda", "cuda-launcher"}}, {"description", "only this backend"}}},
                                {"variant", {{"type", "string"}, {"maxLength", 64}, {"description", "only this dtype variant, e.g. \"f32\""}}}},
                               {"op"}),
                 json::parse(R"({"type": "object", "required": ["op", "commit", "entries"],
                   "properties": {"op": {"type": "string"}, "commit": {"type": "string"}, "entries": {"type": "array"}}})"),
                 k_read_only, get_incumbent});
  out.push_back({"list_candidates", "List candidates",
                 "Lists submitted candidates, newest first, with their state (queued ... done, cancelled) and verdict status; filter "
                 "by op, state or status. Use get_verdict for one candidate's full verdict.",
                 object_schema({{"op", k_op},
                                {"state", {{"type", "string"}, {"enum", {"queued", "analyzing", "compiling", "validating", "benchmarking", "deciding", "done", "cancelled"}}}},
                                {"status", {{"type", "string"}, {"maxLength", 32}, {"description", "a verdict status, e.g. \"accepted\" or \"incorrect\""}}},
                                {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 500}, {"description", "default 20"}}}}),
                 json::parse(R"({"type": "object", "required": ["items"],
                   "properties": {"items": {"type": "array"}, "next": {"type": ["string", "null"]}}})"),
                 k_read_only, list_candidates});
  out.push_back({"leaderboard", "Leaderboard of an op",
                 "Accepted candidates of an op, best geometric-mean speed-up against the incumbent first, with whether each beats "
                 "it under the promotion rule (interleaved A/B timing; undecided never counts as a win).",
                 object_schema({{"op", k_op}, {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 500}, {"description", "default 10"}}}}, {"op"}),
                 json::parse(R"({"type": "object", "required": ["op", "candidates"],
                   "properties": {"op": {"type": "string"}, "candidates": {"type": "array"}}})"),
                 k_read_only, leaderboard});
  out.push_back({"diff_vs_incumbent", "Diff against the incumbent",
                 "A finished candidate against the current incumbent: the unified diff of the library change its promotion would "
                 "make, and per bench workload the candidate's and the incumbent's median time and the interleaved comparison's label "
                 "(faster / slower / same / undecided) and ratio (> 1 is faster).",
                 object_schema({{"id", k_id}}, {"id"}),
                 json::parse(R"({"type": "object", "required": ["id", "op"], "properties": {"id": {"type": "string"},
                   "op": {"type": "string"}, "diff": {"type": "string"}, "workloads": {"type": "array"}}})"),
                 k_read_only, diff_vs_incumbent});
  out.push_back({"library_report", "The library's scorecard",
                 "The library's scorecard as last measured on the daemon's machine (kwb library report --measure): per op, variant, "
                 "device class and bench workload the incumbent's time, its ratio to the fastest other implementation (vendor "
                 "baselines such as cuBLAS or CUB, and the library's other kernels; > 1 is faster), its % of the calibrated and "
                 "data-sheet roofs; per op the share of rows at 0.99x the fastest and the geomean; the rows below that bar. Where "
                 "the incumbent is far from its roof or below the bar there is room for a better kernel.",
                 object_schema(json::object()),
                 json::parse(R"({"type": "object", "required": ["schema", "source", "rows", "families", "below_bar"],
                   "properties": {"schema": {"type": "string"}, "source": {"type": "object"}, "rows": {"type": "array"},
                   "families": {"type": "array"}, "below_bar": {"type": "array"}}})"),
                 k_read_only, library_report});
}

}  // namespace kwb::mcp
