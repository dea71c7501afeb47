// Escaping for the human-readable reports plugins write (HTML pages, Markdown tables).
#ifndef SKILLRT_PLUGIN_IO_REPORT_TEXT_HPP_
#define SKILLRT_PLUGIN_IO_REPORT_TEXT_HPP_

#include <string>
#include <string_view>

namespace skillrt::plugin_io {

// Text safe inside HTML element content and double-quoted attributes.
std::string html_escape(std::string_view text);

// Text that stays inside one Markdown table cell: '|' escaped, line breaks become spaces.
std::string markdown_cell(std::string_view text);

}  // namespace skillrt::plugin_io

#endif  // SKILLRT_PLUGIN_IO_REPORT_TEXT_HPP_
