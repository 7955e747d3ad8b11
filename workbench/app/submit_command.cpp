// kwb submit FILE --op OP [--wait]: send a candidate to a running daemon (POST /v1/candidates).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "app/commands.hpp"
#include "client/api_client.hpp"
#include "core/backend_inference.hpp"
#include "util/fs.hpp"

namespace kwb::app {

namespace {

struct SubmitArgs {
  std::string file, op, variant, backend, note, key, server, token;
  std::vector<std::string> flags, bench;
  std::string device_class;
  bool wait = false, json = false, profile = false;
};

int run_submit(const SubmitArgs& a) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(a.file, ec))
    return std::fprintf(stderr, "kwb submit: no such file: %s\n", a.file.c_str()), 2;
  auto source = util::read_file(a.file);
  if (!source) return std::fprintf(stderr, "kwb submit: %s\n", source.error().what().c_str()), 2;
  // No --backend: inferred from the file as `kwb eval` does.
  const std::string backend =
      !a.backend.empty() ? a.backend : std::string(core::backend_name(core::infer_backend(a.file, *source)));
  nlohmann::json body = {{"op", a.op},
                         {"backend", backend},
                         {"source", *source},
                         {"source_name", std::filesystem::path(a.file).filename().string()}};
  if (!a.variant.empty()) body["variant"] = a.variant;
  if (!a.flags.empty()) body["flags"] = a.flags;
  if (!a.bench.empty()) body["bench"] = a.bench;
  if (!a.device_class.empty()) body["device_class"] = a.device_class;
  if (!a.note.empty()) body["note"] = a.note;
  if (a.profile) body["profile"] = true;
  client::HeaderList headers;
  if (!a.key.empty()) headers.emplace_back("Idempotency-Key", a.key);

  client::ApiClient api(client::resolve_endpoint(a.server, a.token));
  auto reply = api.post("/v1/candidates", body, headers);
  if (!reply) {
    const auto& e = reply.error();
    std::fprintf(stderr, "kwb submit: %s\n", e.what().c_str());
    if (e.retry_after_s > 0) std::fprintf(stderr, "kwb submit: the daemon asks to retry after %d s\n", e.retry_after_s);
    return 2;
  }
  std::string id = reply->body.is_object() ? reply->body.value("id", std::string()) : std::string();
  if (id.empty()) return std::fprintf(stderr, "kwb submit: the daemon's reply has no id: %s\n", reply->raw.c_str()), 2;
  bool replay = reply->header("Idempotent-Replay") == "true";
  if (!a.wait) {
    if (a.json)
      std::cout << reply->body.dump(2) << "\n";
    else
      std::printf("%s\n", id.c_str());
    if (replay) std::fprintf(stderr, "kwb submit: idempotent replay: key '%s' was already used for %s\n", a.key.c_str(), id.c_str());
    return 0;
  }
  std::fprintf(a.json ? stderr : stdout, "%s %s\n", id.c_str(), replay ? "(idempotent replay of an earlier submission)" : "submitted");
  std::fflush(stdout);
  return follow_and_print(api, id, a.json, "submit");
}

}  // namespace

void add_submit_command(CLI::App& app, int& code) {
  auto a = std::make_shared<SubmitArgs>();
  auto* cmd = app.add_subcommand("submit", "Submit a candidate to a running daemon (kwb serve); print its id, or with "
                                           "--wait follow it stage by stage to its verdict. Exit 0 submitted/accepted, "
                                           "1 any other verdict, 2 usage or HTTP error");
  cmd->add_option("file", a->file, "Candidate source file (its base name is sent as source_name)")->required();
  cmd->add_option("--op", a->op, "Operator spec to check against (see `kwb specs`)")->required();
  cmd->add_option("--variant", a->variant, "Spec variant (default: inferred from the entry symbol)");
  cmd->add_option("--backend", a->backend, "cpu, cuda or cuda-launcher (default: .cu files are cuda, or cuda-launcher "
                                           "without a kwb:launch line and with a cudaStream_t; else cpu)");
  cmd->add_option("--flag", a->flags, "Extra compiler flag (repeatable; -O*, -f*, -m*, -D*, -U*, -W* only)");
  cmd->add_option("--bench", a->bench, "Time only this bench workload (repeatable; fast feedback, not promotable)");
  cmd->add_option("--device-class", a->device_class,
                  "Evaluate on a device of this class (cpu-x86_64-v3, cuda-sm_90: kwb status / GET /v1/devices)");
  cmd->add_option("--note", a->note, "Free text stored with the candidate");
  cmd->add_flag("--profile", a->profile, "Ask for a profile of the bench workloads (verdict.profile; no_device without a GPU)");
  cmd->add_option("--idempotency-key", a->key, "Resubmitting with the same key returns the same candidate");
  cmd->add_flag("--wait", a->wait, "Follow the candidate to its verdict (SSE; long-poll if the stream drops)");
  cmd->add_flag("--json", a->json, "Print JSON: the submit reply, or with --wait the kwb.verdict.v1 verdict");
  cmd->add_option("--server", a->server, "Daemon URL [env KWB_SERVER, default http://127.0.0.1:8470]");
  cmd->add_option("--token", a->token, "Bearer token [env KWB_TOKEN]");
  cmd->callback([a, &code] { code = run_submit(*a); });
}

}  // namespace kwb::app
