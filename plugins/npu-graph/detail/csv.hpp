// A small RFC 4180 reader for the Ascend profiler CSVs (quoted fields hold commas in shapes).
#ifndef SKILLRT_NPU_GRAPH_DETAIL_CSV_HPP_
#define SKILLRT_NPU_GRAPH_DETAIL_CSV_HPP_

#include <string>
#include <string_view>
#include <vector>

namespace skillrt::npu_graph::detail {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // Index of the first column whose header equals one of `names` (trimmed), or -1.
  int column(const std::vector<std::string>& names) const;
};

// Throws std::runtime_error naming `source` and the line on an unterminated quote.
CsvTable parse_csv(std::string_view text, const std::string& source);

// Parses a number field; empty, "N/A" or malformed gives `fallback`.
double to_number(const std::string& field, double fallback = 0.0);

}  // namespace skillrt::npu_graph::detail

#endif  // SKILLRT_NPU_GRAPH_DETAIL_CSV_HPP_
