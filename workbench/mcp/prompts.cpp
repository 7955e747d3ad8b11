// prompts/list, prompts/get and completion/complete: one prompt, "optimise", that sets up an
// agent's loop for an op on a device, with the op's spec embedded as a resource.
#include "mcp/protocol.hpp"
#include "mcp/tool.hpp"

namespace kwb::mcp {

namespace {

constexpr const char* k_prompt = "optimise";
const std::vector<std::string> k_devices = {"cpu", "cuda"};

json prompt_arguments() {
  return json::array({{{"name", "op"}, {"description", "the op to optimise (a name from list_ops)"}, {"required", true}},
                      {{"name", "device"}, {"description", "cpu (default) or cuda"}, {"required", false}}});
}

std::string loop_text(const std::string& op, const std::string& device) {
  std::string backend = device == "cuda" ? "cuda" : "cpu";
  return "Optimise the kernel of op `" + op + "` for the " + device + " device with the Kernel Workbench tools.\n\n"
         "The spec of " + op + " is attached: the entry signature of each variant (tensors as pointers in spec order, then "
         "int64 params, then double scalars; its contract has the exact prototype), dtypes, tolerances (an output with a "
         "\"set\" rule is compared as a set per row) and the bench workloads you are timed on.\n\nLoop:\n"
         "1. get_incumbent {\"op\": \"" + op + "\", \"backend\": \"" + backend + "\"}: the source and the median times to beat.\n"
         "2. Write one variant (one whole file) that keeps the exact entry signature; change one idea at a time.\n"
         "3. submit_kernel {\"op\": \"" + op + "\", \"backend\": \"" + backend + "\", \"source\": ...} with a progressToken, "
         "or without one and then get_verdict {\"id\": ..., \"wait_s\": 120}.\n"
         "4. Read the verdict: compile_error/rejected -> fix the diagnostic it names; incorrect -> the first mismatch names "
         "the workload, tensor, index, got and expected; accepted -> the speed-up against the incumbent per bench workload.\n"
         "5. diff_vs_incumbent {\"id\": ...} for the per-workload table; keep the best candidate and iterate from it "
         "(pass it as `parent`).\n"
         "Stop when a candidate is accepted, faster than the incumbent (promotable: yes) and further ideas stop paying; report "
         "its id. Do not call promote: a reviewer decides. Use `bench` with a single workload for quick iterations, then submit "
         "once more without it (verdicts timed on a subset cannot be promoted).";
}

std::vector<std::string> op_names(const RequestContext& ctx) {
  std::vector<std::string> ops;
  auto r = ctx.rest->get("/v1/specs");
  if (r.ok())
    for (const auto& s : r.body.value("specs", json::array())) ops.push_back(s.value("op", ""));
  return ops;
}

}  // namespace

MethodResult list_prompts(const RequestContext&) {
  return json{{"prompts", json::array({{{"name", k_prompt},
                                        {"title", "Optimise OP for DEVICE"},
                                        {"description", "Sets up the loop for making an op's kernel faster on a device: the spec, "
                                                        "the incumbent, submit, read the verdict, iterate."},
                                        {"arguments", prompt_arguments()}}})}};
}

MethodResult get_prompt(const json& params, const RequestContext& ctx) {
  if (params.value("name", json()) != k_prompt)
    return RpcError{code::invalid_params, "Unknown prompt: " + json_text(params.value("name", json())) + " (prompts: optimise)", {}};
  json args = params.value("arguments", json::object());
  if (!args.is_object()) return RpcError{code::invalid_params, "prompts/get: arguments must be an object of strings", {}};
  if (!args.contains("op") || !args["op"].is_string() || args["op"].get<std::string>().empty())
    return RpcError{code::invalid_params, "prompts/get optimise: argument 'op' is required (list_ops names the ops)", {}};
  std::string op = args["op"], device = args.value("device", "cpu");
  if (device != "cpu" && device != "cuda")
    return RpcError{code::invalid_params, "prompts/get optimise: argument 'device': expected cpu or cuda, got '" + device + "'", {}};
  auto spec = ctx.rest->get("/v1/specs/" + url_encode(op));
  if (spec.status == 404) return RpcError{code::invalid_params, "prompts/get optimise: no spec for op '" + op + "' (list_ops names the ops)", {}};
  if (!spec.ok()) return RpcError{code::internal_error, "prompts/get optimise: " + spec.error_line(), {}};
  json messages = json::array(
      {{{"role", "user"}, {"content", {{"type", "text"}, {"text", loop_text(op, device)}}}},
       {{"role", "user"},
        {"content", {{"type", "resource"},
                     {"resource", {{"uri", "kwb://specs/" + op}, {"mimeType", "application/json"}, {"text", json_text(spec.body)}}}}}}});
  return json{{"description", "Optimise " + op + " for " + device}, {"messages", messages}};
}

MethodResult complete(const json& params, const RequestContext& ctx) {
  const json ref = params.value("ref", json::object());
  const json arg = params.value("argument", json::object());
  if (!ref.is_object() || !arg.is_object() || !arg.contains("name") || !arg["name"].is_string())
    return RpcError{code::invalid_params, "completion/complete: params.ref and params.argument {name, value} are required", {}};
  std::string type = ref.value("type", ""), name = arg["name"], value = arg.value("value", "");
  std::vector<std::string> pool;
  if (type == "ref/prompt" && ref.value("name", "") == k_prompt && name == "op") pool = op_names(ctx);
  else if (type == "ref/prompt" && ref.value("name", "") == k_prompt && name == "device") pool = k_devices;
  else if (type == "ref/resource" && ref.value("uri", "") == "kwb://specs/{op}" && name == "op") pool = op_names(ctx);
  else if (type == "ref/prompt" && ref.value("name", "") != k_prompt)
    return RpcError{code::invalid_params, "completion/complete: unknown prompt " + json_text(ref.value("name", json())) + " (prompts: optimise)", {}};
  json values = json::array();
  for (const auto& p : pool)
    if (p.starts_with(value)) values.push_back(p);
  return json{{"completion", {{"values", values}, {"total", values.size()}, {"hasMore", false}}}};
}

}  // namespace kwb::mcp
