#pragma once
// The protocol revisions this server speaks (docs/mcp.md "Revisions"): 2026-07-28, stateless
// (every request carries its version and client capabilities in _meta; no handshake, no
// session), and 2025-11-25, whose initialize handshake opens a session (an HTTP session with
// Mcp-Session-Id, or the stdio process).
#include <string>
#include <string_view>
#include <vector>

namespace kwb::mcp {

inline constexpr std::string_view k_modern_revision = "2026-07-28";
inline constexpr std::string_view k_legacy_revision = "2025-11-25";

enum class Era { legacy, modern };

// Every revision served, newest first (server/discover's supportedVersions, the `supported` of
// UnsupportedProtocolVersionError).
inline std::vector<std::string> supported_revisions() {
  return {std::string(k_modern_revision), std::string(k_legacy_revision)};
}

// The per-request _meta keys of 2026-07-28.
inline constexpr const char* k_meta_version = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* k_meta_capabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* k_meta_client = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* k_meta_server = "io.modelcontextprotocol/serverInfo";

}  // namespace kwb::mcp
