#pragma once
// The MCP tools' REST API inside the daemon (mcp/rest.hpp): a request to this daemon's own
// routes, run in process on the calling worker thread with the MCP caller's Authorization header
// and address: the route's handler is found in the route table and called with a request object,
// no HTTP text written or parsed. The same route code, auth and rate limits as over HTTP, without
// a connection or another worker (so concurrent MCP calls cannot exhaust a pool waiting on inner
// requests: each inner request runs on the thread that waits for it).
#include <memory>
#include <string>

#include "api/router.hpp"
#include "mcp/rest.hpp"

namespace kwb::api {

class InProcessRest : public mcp::Rest {
 public:
  InProcessRest(std::shared_ptr<const RouteTable> routes, std::string authorization, std::string peer_ip)
      : m_routes(std::move(routes)), m_authorization(std::move(authorization)), m_peer_ip(std::move(peer_ip)) {}
  mcp::RestReply get(const std::string& target) override;
  mcp::RestReply post(const std::string& target, const nlohmann::json& body, const mcp::RestHeaders& headers) override;

 private:
  mcp::RestReply send(const std::string& method, const std::string& target, std::string body,
                      const mcp::RestHeaders& headers);
  std::shared_ptr<const RouteTable> m_routes;
  std::string m_authorization, m_peer_ip;
};

}  // namespace kwb::api
