// URI reference resolution (RFC 3986 section 5) for "$id" and "$ref".
#pragma once

#include <string>
#include <string_view>

namespace skillrt::schema::detail {

// `ref` resolved against `base`; `ref` unchanged when `base` is empty or `ref` is absolute.
// valijson only concatenates the two, which breaks "$id": "folder/" and sibling file names.
std::string resolve_uri(std::string_view base, std::string_view ref);

// The URI without its fragment ("http://a/b.json#/x" -> "http://a/b.json").
std::string strip_fragment(std::string_view uri);

}  // namespace skillrt::schema::detail
