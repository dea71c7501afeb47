// The text work of the HTTP transport, kept apart from Beast (which is heavy to compile): header
// values, the query string, session ids and the framing of a chunked SSE stream.
#pragma once

#include <string>
#include <string_view>

namespace skillrt::transport::detail {

std::string lower(std::string_view s);

bool is_loopback_name(std::string_view host);

// "localhost:8080" -> "localhost", "[::1]:80" -> "[::1]".
std::string_view strip_port(std::string_view host);

// The host of an Origin such as "http://localhost:3000"; empty without a scheme.
std::string_view origin_host(std::string_view origin);

// Compares in time that depends on the length only, for the access token.
bool constant_time_equal(std::string_view a, std::string_view b);

// The percent-decoded value of `name` in the target's query ("/?token=a%2Bb" -> "a+b"); empty
// when absent.
std::string query_value(std::string_view target, std::string_view name);

// 128 random bits as 32 hex digits, from a per-thread generator seeded by std::random_device.
std::string new_session_id();

// `data` as one chunk of a chunked transfer encoding.
std::string chunk(std::string_view data);

// One JSON-RPC message as a server-sent event, in its own chunk.
std::string sse_event(std::string_view message);

}  // namespace skillrt::transport::detail
