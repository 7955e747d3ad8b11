#include "api/mcp_rest.hpp"

#include "api/http_util.hpp"

namespace kwb::api {

mcp::RestReply InProcessRest::get(const std::string& target) { return send("GET", target, "", {}); }

mcp::RestReply InProcessRest::post(const std::string& target, const nlohmann::json& body, const mcp::RestHeaders& headers) {
  return send("POST", target, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), headers);
}

mcp::RestReply InProcessRest::send(const std::string& method, const std::string& target, std::string body,
                                   const mcp::RestHeaders& headers) {
  httplib::Request req;
  req.method = method;
  req.target = target;
  const auto q = target.find('?');
  req.path = target.substr(0, q);
  if (q != std::string::npos) httplib::detail::parse_query_text(target.substr(q + 1), req.params);
  if (!m_authorization.empty()) req.headers.emplace("Authorization", m_authorization);
  for (const auto& [k, v] : headers)
    if (v.find_first_of("\r\n") == std::string::npos) req.headers.emplace(k, v);
  if (method == "POST") {
    req.headers.emplace("Content-Type", "application/json");
    req.headers.emplace("Content-Length", std::to_string(body.size()));
  }
  req.body = std::move(body);
  req.remote_addr = m_peer_ip;
  httplib::Response res;
  // The inner route's guard notes its principal for the request log; the enclosing /mcp request
  // keeps its own.
  const std::string outer = noted_principal();
  mcp::RestReply reply;
  try {
    if (!m_routes->dispatch(req, res)) send_error(res, 404, "not_found", "no route " + method + " " + req.path);
  } catch (const std::exception& e) {  // as the server's exception handler answers it
    send_error(res, 500, "internal", std::string("internal error: ") + e.what());
  }
  note_principal(outer);
  reply.status = res.status < 0 ? 200 : res.status;
  reply.raw = res.body;
  reply.body = nlohmann::json::parse(res.body, nullptr, false);
  if (reply.body.is_discarded()) reply.body = nullptr;
  return reply;
}

}  // namespace kwb::api
