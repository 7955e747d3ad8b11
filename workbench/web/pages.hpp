#pragma once
// The review pages of `kwb serve` (docs/web.md): GET / and GET /ui/<file>, static files embedded
// in the binary. They carry no data and need no token: the pages are a client of the JSON API,
// which they call with the token the reviewer typed (Authorization: Bearer, never a cookie), so
// roles are enforced where they always are, by the API.
#include <httplib.h>

namespace kwb::web {

// The Content-Security-Policy of every page and asset: scripts, styles and connections from
// this origin only, no inline script or style, no plugins, no framing.
extern const char* const k_content_security_policy;

void add_pages(httplib::Server& svr);

}  // namespace kwb::web
