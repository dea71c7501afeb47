#include "detail/csv.hpp"

#include <cstdlib>
#include <stdexcept>

#include "detail/text.hpp"
#include "optoolkit/text.hpp"

namespace skillrt::npu_graph::detail {

int CsvTable::column(const std::vector<std::string>& names) const {
  for (const std::string& name : names) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (ops::trim_view(header[i]) == name) return static_cast<int>(i);
    }
  }
  return -1;
}

CsvTable parse_csv(std::string_view text, const std::string& source) {
  CsvTable table;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  bool row_has_data = false;
  size_t line = 1;
  // A UTF-8 byte-order mark is common in files written on Windows tools.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  auto end_row = [&]() {
    row.push_back(field);
    field.clear();
    if (row_has_data || row.size() > 1 || !row.front().empty()) {
      if (table.header.empty()) {
        table.header = std::move(row);
      } else {
        table.rows.push_back(std::move(row));
      }
    }
    row = {};
    row_has_data = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      row_has_data = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
      row_has_data = true;
    } else if (c == '\n') {
      ++line;
      end_row();
    } else if (c != '\r') {
      field.push_back(c);
    }
  }
  if (quoted) {
    throw std::runtime_error(source + ": unterminated quoted field at line " +
                             std::to_string(line) + ": the CSV is truncated or malformed");
  }
  if (!field.empty() || !row.empty()) end_row();
  return table;
}

double to_number(const std::string& field, double fallback) {
  const std::string_view t = ops::trim_view(field);
  if (t.empty()) return fallback;
  const std::string s(t);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return fallback;
  return v;
}

}  // namespace skillrt::npu_graph::detail
