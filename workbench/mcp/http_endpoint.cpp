#include "mcp/http_endpoint.hpp"

#include <algorithm>
#include <cctype>

#include "mcp/header_value.hpp"

namespace kwb::mcp {

namespace {

HttpOut json_out(int status, const json& message) {
  HttpOut o;
  o.status = status;
  o.content_type = "application/json";
  o.body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  return o;
}

HttpOut error_out(int status, const json& id, int code_, std::string message, json data = nullptr) {
  return json_out(status, make_error(id, {code_, std::move(message), std::move(data)}));
}

// 2026-07-28 maps protocol errors onto HTTP statuses; 2025-11-25 answers JSON-RPC errors 200.
int status_for(Era era, const json& response) {
  if (era == Era::legacy || !response.contains("error")) return 200;
  int c = response["error"].value("code", 0);
  if (c == code::method_not_found) return 404;
  if (c == code::internal_error) return 500;
  return 400;  // invalid params/request, header mismatch, missing capability, unsupported version
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string host_part(const std::string& hostport) {
  if (hostport.starts_with("[")) return hostport.substr(0, hostport.find(']') + 1);
  return hostport.substr(0, hostport.find(':'));
}

std::string id_key(const json& id) { return id.dump(); }

}  // namespace

bool loopback_name(const std::string& h) { return h == "localhost" || h == "127.0.0.1" || h == "[::1]"; }

// An IP literal cannot be rebound by DNS; a DNS name other than localhost can.
bool ip_literal(const std::string& h) {
  if (h.starts_with("[")) return true;
  return !h.empty() && h.find_first_not_of("0123456789.") == std::string::npos;
}

bool origin_allowed(const std::string& origin, const std::string& host) {
  std::string host_name = host_part(lower(host));
  if (!host.empty() && !loopback_name(host_name) && !ip_literal(host_name)) return false;  // DNS rebinding
  if (origin.empty()) return true;  // not a browser
  auto scheme = origin.find("://");
  if (scheme == std::string::npos) return false;  // "null" and other opaque origins
  std::string hostport = lower(origin.substr(scheme + 3));
  hostport = hostport.substr(0, hostport.find('/'));
  return loopback_name(host_part(hostport)) || hostport == lower(host);  // a loopback page, or this server's own
}

HttpOut HttpEndpoint::handle(const HttpIn& in, std::shared_ptr<Rest> rest) {
  if (!origin_allowed(in.header("Origin"), in.header("Host")))
    return error_out(403, nullptr, code::invalid_request,
                     "Forbidden: Host '" + in.header("Host") + "' / Origin '" + in.header("Origin") +
                         "': /mcp answers requests for localhost or an IP address, from no origin, a loopback origin or its own "
                         "(DNS-rebinding protection)");
  if (in.method == "POST") return post(in, std::move(rest));
  if (in.method == "DELETE") {
    std::string sid = in.header("Mcp-Session-Id");
    if (sid.empty()) {
      HttpOut o = error_out(405, nullptr, code::invalid_request, "DELETE /mcp ends a 2025-11-25 session: send its Mcp-Session-Id");
      o.headers.emplace_back("Allow", "POST, DELETE");
      return o;
    }
    if (!m_sessions.end(sid)) return error_out(404, nullptr, code::invalid_request, "Session not found: " + sid);
    HttpOut o;
    o.status = 204;
    return o;
  }
  HttpOut o = error_out(405, nullptr, code::invalid_request,
                        in.method + " /mcp is not served: send each JSON-RPC message as a POST (this server sends no "
                                    "server-initiated messages, so there is no GET stream)");
  o.headers.emplace_back("Allow", "POST, DELETE");
  return o;
}

HttpOut HttpEndpoint::post(const HttpIn& in, std::shared_ptr<Rest> rest) {
  auto parsed = parse_message_text(in.body);
  if (auto* m = std::get_if<Malformed>(&parsed)) return json_out(400, make_error(m->id, m->error));
  const Incoming& msg = std::get<Incoming>(parsed);
  json id = msg.id.value_or(json());
  const std::string header_version = in.header("MCP-Protocol-Version"), sid = in.header("Mcp-Session-Id");
  const json meta = msg.params.value("_meta", json());
  const bool meta_version = meta.is_object() && meta.contains(k_meta_version);
  const bool modern = header_version == k_modern_revision ||
                      (!header_version.empty() && header_version != k_legacy_revision && sid.empty()) ||
                      (sid.empty() && meta_version && msg.method != "initialize");

  if (!msg.id) {  // a notification or a client's response: accepted, nothing to answer
    if (!modern && !sid.empty()) {
      auto session = m_sessions.find(sid);
      if (!session) return error_out(404, nullptr, code::invalid_request, "Session not found: " + sid + " (initialize again)");
      if (msg.method == "notifications/initialized") session->initialized = true;
      if (msg.method == "notifications/cancelled" && msg.params.contains("requestId"))
        cancel(sid + "\n" + id_key(msg.params["requestId"]));
    }
    HttpOut o;
    o.status = 202;
    return o;
  }

  RequestContext ctx;
  ctx.rest = rest.get();
  if (modern) {
    ctx.era = Era::modern;
    auto checked = m_protocol.modern_meta(msg.params);
    auto* err = std::get_if<RpcError>(&checked);
    if (err && err->code == code::invalid_params) return json_out(400, make_error(id, *err));
    std::string body_version = msg.params["_meta"][k_meta_version];
    if (header_version.empty())
      return error_out(400, id, code::header_mismatch, "Header mismatch: the MCP-Protocol-Version header is required (send " + body_version + ")");
    if (header_version != body_version)
      return error_out(400, id, code::header_mismatch,
                       "Header mismatch: MCP-Protocol-Version header '" + header_version + "' does not match _meta's '" + body_version + "'");
    if (auto problem = routing_header_problem(msg, in.header("Mcp-Method"), in.header("Mcp-Name")))
      return error_out(400, id, code::header_mismatch, "Header mismatch: " + *problem);
    if (err) return json_out(400, make_error(id, *err));
    auto& m = std::get<ModernMeta>(checked);
    ctx.version = m.version;
    ctx.client_capabilities = m.capabilities;
    ctx.log_level = m.log_level;
    return run(in, msg, std::move(ctx), std::move(rest), "");
  }

  ctx.era = Era::legacy;
  if (msg.method == "initialize") {
    Handshake h;
    json response = m_protocol.initialize(msg, &h);
    if (response.contains("error")) return json_out(200, response);
    HttpOut o = json_out(200, response);
    o.headers.emplace_back("Mcp-Session-Id", m_sessions.create(std::move(h)));
    return o;
  }
  if (sid.empty())
    return error_out(400, id, code::invalid_request,
                     "Bad Request: no Mcp-Session-Id. Send initialize first (2025-11-25), or send 2026-07-28 requests with "
                     "_meta." + std::string(k_meta_version) + " and the MCP-Protocol-Version header");
  auto session = m_sessions.find(sid);
  if (!session) return error_out(404, id, code::invalid_request, "Session not found: " + sid + " (it ended or expired: initialize again)");
  if (!header_version.empty() && header_version != session->handshake.version)
    return error_out(400, id, code::invalid_request,
                     "Bad Request: MCP-Protocol-Version '" + header_version + "' is not this session's revision " + session->handshake.version);
  ctx.version = session->handshake.version;
  ctx.client_capabilities = session->handshake.client_capabilities;
  ctx.session = session.get();
  ctx.log_level = session->log_enabled ? session->log_level.load() : -1;
  // The session outlives this request's answer: the stream holds it through `rest`'s lifetime.
  auto out = run(in, msg, std::move(ctx), std::move(rest), sid + "\n" + id_key(id));
  if (out.stream) {
    auto inner = std::move(out.stream);
    out.stream = [inner = std::move(inner), session](const std::function<bool(const std::string&)>& write) { inner(write); };
  }
  return out;
}

HttpOut HttpEndpoint::run(const HttpIn& in, const Incoming& msg, RequestContext ctx, std::shared_ptr<Rest> rest,
                          const std::string& cancel_key) {
  const Era era = ctx.era;
  const json token = msg.params.value("_meta", json::object()).value("progressToken", json());
  // A tools/call or tasks/result streams its notifications (progress for a progressToken, log
  // messages once asked for) when the client accepts an event stream.
  const bool stream = (msg.method == "tools/call" || msg.method == "tasks/result") &&
                      (token.is_string() || token.is_number_integer() || ctx.log_level >= 0) &&
                      in.header("Accept").find("text/event-stream") != std::string::npos;
  auto flag = cancel_key.empty() ? std::make_shared<std::atomic<bool>>(false) : track(cancel_key);
  if (!stream) {
    ctx.cancelled = [flag] { return flag->load(); };
    json response = m_protocol.call(msg, ctx);
    if (!cancel_key.empty()) untrack(cancel_key);
    return json_out(status_for(era, response), response);
  }
  HttpOut o;
  o.content_type = "text/event-stream";
  o.headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
  o.stream = [this, msg, ctx, rest, flag, cancel_key](const std::function<bool(const std::string&)>& write) mutable {
    auto frame = [&write, flag](const json& m) {
      if (flag->load()) return;
      if (!write("event: message\ndata: " + m.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n")) *flag = true;
    };
    ctx.notify = frame;
    ctx.cancelled = [flag] { return flag->load(); };
    json response = m_protocol.call(msg, ctx);
    frame(response);  // not sent once cancelled: nothing more for a cancelled request
    if (!cancel_key.empty()) untrack(cancel_key);
  };
  return o;
}

std::shared_ptr<std::atomic<bool>> HttpEndpoint::track(const std::string& key) {
  std::lock_guard lock(m_mutex);
  auto& f = m_inflight[key];
  if (!f) f = std::make_shared<std::atomic<bool>>(false);
  return f;
}

void HttpEndpoint::untrack(const std::string& key) {
  std::lock_guard lock(m_mutex);
  m_inflight.erase(key);
}

void HttpEndpoint::cancel(const std::string& key) {
  std::lock_guard lock(m_mutex);
  if (auto it = m_inflight.find(key); it != m_inflight.end()) *it->second = true;
}

}  // namespace kwb::mcp
