#pragma once
// cpp-httplib's routing without its connection handling: process_request() (protected) runs
// one request read from a Stream — a RequestStream of a connection (api/server.cpp), or a
// request made in-process by the MCP endpoint (api/mcp_rest.hpp). svr_sock_ (protected) is what
// httplib's streaming responses poll to learn that the server stops; it is never used as a
// socket here.
#include <httplib.h>

namespace kwb::api {

class HttpDispatcher : public httplib::Server {
 public:
  bool serve(httplib::Stream& strm, bool close_connection, bool& connection_closed) {
    return process_request(strm, close_connection, connection_closed, nullptr);
  }
  void set_live(bool live) { svr_sock_ = live ? 0 : INVALID_SOCKET; }
};

}  // namespace kwb::api
