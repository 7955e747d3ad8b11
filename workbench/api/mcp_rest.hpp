#pragma once
// The MCP tools' REST API inside the daemon (mcp/rest.hpp): a request to this daemon's own
// routes, made in-process on the calling worker thread with the MCP caller's Authorization
// header and address — the same route code, auth and rate limits as over HTTP, without a
// connection or another worker (so concurrent MCP calls cannot exhaust a pool waiting on
// inner requests: each inner request runs on the thread that waits for it).
#include <string>

#include "api/http_dispatcher.hpp"
#include "mcp/rest.hpp"

namespace kwb::api {

class InProcessRest : public mcp::Rest {
 public:
  InProcessRest(HttpDispatcher& http, std::string authorization, std::string peer_ip)
      : m_http(http), m_authorization(std::move(authorization)), m_peer_ip(std::move(peer_ip)) {}
  mcp::RestReply get(const std::string& target) override;
  mcp::RestReply post(const std::string& target, const nlohmann::json& body, const mcp::RestHeaders& headers) override;

 private:
  mcp::RestReply send(const std::string& method, const std::string& target, const std::string& body,
                      const mcp::RestHeaders& headers);
  HttpDispatcher& m_http;
  std::string m_authorization, m_peer_ip;
};

}  // namespace kwb::api
