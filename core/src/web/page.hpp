// The web page for people: served by the HTTP transport at / (HttpOptions::page), it is an MCP
// client in the browser that talks to /mcp like any other client (docs/web.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "transport/http_transport.hpp"

namespace skillrt::web {

// The answer to a GET of `path`: the page at "/" (its style and script inlined, under a
// Content-Security-Policy that allows only them), nullopt for any other path.
std::optional<transport::PageResponse> serve(std::string_view path);

// The address to open: http://HOST:PORT/, with ?token=<percent-encoded token> when there is one.
// A wildcard host (0.0.0.0, ::) becomes 127.0.0.1, whose Origin /mcp accepts.
std::string page_url(std::string_view host, uint16_t port, std::string_view token);

}  // namespace skillrt::web
