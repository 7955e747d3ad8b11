// kwb mcp: the MCP server over stdio (docs/mcp.md) for agents that launch their tools as
// subprocesses. Its tools are clients of a daemon's REST API: the one named by --server /
// KWB_SERVER with --token / KWB_TOKEN, or, with neither, an embedded `kwb serve` on the
// workspace. stdout carries MCP messages only; everything else goes to stderr.
#include <cstdio>
#include <memory>

#include "app/commands.hpp"
#include "app/embedded_daemon.hpp"
#include "client/api_client.hpp"
#include "mcp/stdio_server.hpp"

namespace kwb::app {

namespace {

// mcp::Rest over HTTP (one keep-alive connection per request of the MCP client).
class HttpRest : public mcp::Rest {
 public:
  explicit HttpRest(client::Endpoint ep) : m_api(std::move(ep)) {}
  mcp::RestReply get(const std::string& target) override { return reply(m_api.get(target)); }
  mcp::RestReply post(const std::string& target, const nlohmann::json& body, const mcp::RestHeaders& headers) override {
    return reply(m_api.post(target, body, headers));
  }

 private:
  static mcp::RestReply reply(const client::ApiResult<client::Reply>& r) {
    mcp::RestReply out;
    if (r) {
      out.status = r->status;
      out.body = r->body;
      out.raw = r->raw;
      return out;
    }
    out.status = r.error().status;
    out.raw = r.error().message;
    if (out.status != 0) out.body = {{"error", {{"type", r.error().type}, {"message", r.error().message}}}};
    return out;
  }
  client::ApiClient m_api;
};

struct McpArgs {
  std::string server, token, role = "agent";
};

int run_mcp(const McpArgs& a, const util::Settings& settings) {
  client::Endpoint ep;
  std::unique_ptr<EmbeddedDaemon> daemon;
  if (client::server_named(a.server)) {
    ep = client::resolve_endpoint(a.server, a.token);
    std::fprintf(stderr, "kwb mcp: serving MCP on stdio for %s\n", ep.url.c_str());
  } else {
    daemon = std::make_unique<EmbeddedDaemon>();
    if (auto r = daemon->start(settings.get("workspace"), a.role); !r)
      return std::fprintf(stderr, "kwb mcp: %s\n", r.error().what().c_str()), 2;
    ep = {daemon->url(), daemon->token()};
    std::fprintf(stderr, "kwb mcp: serving MCP on stdio with an embedded daemon at %s (token role %s)\n", ep.url.c_str(),
                 a.role.c_str());
  }
  std::fflush(stderr);
  std::function<std::unique_ptr<mcp::Rest>()> make_rest = [ep] { return std::make_unique<HttpRest>(ep); };
  return mcp::serve_stdio(make_rest);
}

}  // namespace

void add_mcp_command(CLI::App& app, util::Settings& settings, int& code) {
  auto a = std::make_shared<McpArgs>();
  auto* cmd = app.add_subcommand("mcp", "MCP server on stdin/stdout (revisions 2026-07-28 and 2025-11-25) for coding agents");
  cmd->add_option("--server", a->server, "Daemon to use (default: KWB_SERVER; with neither, an embedded daemon on --workspace)");
  cmd->add_option("--token", a->token, "Bearer token for --server (default: KWB_TOKEN)");
  cmd->add_option("--role", a->role, "Role of the embedded daemon's session token")
      ->check(CLI::IsMember({"agent", "reviewer", "admin"}))
      ->default_val("agent");
  add_setting_flags(*cmd, settings);
  cmd->callback([a, &settings, &code] { code = run_mcp(*a, settings); });
}

}  // namespace kwb::app
