// Small text edits of op-plugin's files that keep everything else byte for byte: a YAML entry
// inserted into its section, a JSON list found or rewritten, a name added to or removed from the
// public-API allowlist.
#ifndef SKILLRT_OP_ADAPTATION_DETAIL_FILE_EDITS_HPP_
#define SKILLRT_OP_ADAPTATION_DETAIL_FILE_EDITS_HPP_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace skillrt::opa::detail {

using Json = nlohmann::json;

// A version spec as the YAML writes it: a string as it is, a list as [a, b].
std::string version_text(const Json& spec);

// A JSON list of strings on one line.
std::string json_list(const Json& list);

// The baseline JSON's version list for a YAML version spec (test_compatibility semantics).
Json baseline_versions(const Json& spec, const std::vector<std::string>& all);

// A YAML scalar: an identifier as it is, anything else single-quoted.
std::string yaml_scalar(const std::string& s);

// Inserts `block` (full lines) at the end of top-level section `section`, creating it at the
// end of the file when absent. Item indentation follows the section's first item.
std::string insert_in_section(const std::string& text, const std::string& section,
                              const std::string& entry_lines_at_indent0, std::string* indent_used);

// [open, close] offsets of the JSON array that is the value of "key" inside the text range.
bool find_json_list(const std::string& text, const std::string& key, size_t from, size_t* open,
                    size_t* close);

// The blanks that start the line holding `pos`.
std::string line_indent(const std::string& text, size_t pos);

// Adds "name" to the list of `version` in the allowlist text; adds the version key when absent.
std::string allowlist_add(std::string text, const std::string& version, const std::string& name);

std::string allowlist_remove(std::string text, const std::string& version, const std::string& name);

// A path the callee suggested, when it is relative and stays inside the checkout; else empty.
std::string relative_inside(const std::string& suggested);

}  // namespace skillrt::opa::detail

#endif  // SKILLRT_OP_ADAPTATION_DETAIL_FILE_EDITS_HPP_
