#pragma once
// Socket-level helpers of the connection gate: the listening socket, peer addresses, the bytes of
// a JSON refusal, and the Expect header the gate answers itself.
#include <string>

#include "api/request_head.hpp"
#include "api/request_stream.hpp"

namespace kwb::api {

// A non-blocking listening socket on host:port (port 0: any), SO_REUSEADDR only (SO_REUSEPORT
// would let a second daemon share the port silently), backlog 1024; -1 with a message.
int listen_socket(const std::string& host, int port, std::string* error);
// The remote and local addresses of a connected (or listening) socket.
Peer peer_of(int fd);
// The bytes of a JSON error reply: {"error": {"type", "message"}} with Connection: close.
std::string refusal_bytes(const Refusal& r);
// Renames an "Expect:" header in place (same length) once the gate has answered 100 Continue
// itself, so that the HTTP library does not send a second one into the response.
void neutralise_expect(std::string& buf, size_t head_bytes);

}  // namespace kwb::api
