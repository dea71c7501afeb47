#include "bench_source.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

namespace skillrt::daily_trackers {
namespace {

// Row fields that describe the configuration; every other number is a metric.
const std::set<std::string> kConfigFields = {"hw",
                                             "hardware",
                                             "model",
                                             "infmax_model_prefix",
                                             "framework",
                                             "precision",
                                             "spec_decoding",
                                             "disagg",
                                             "isl",
                                             "osl",
                                             "conc",
                                             "tp",
                                             "ep",
                                             "dp_attention",
                                             "is_multinode",
                                             "prefill_tp",
                                             "prefill_ep",
                                             "prefill_dp_attention",
                                             "prefill_num_workers",
                                             "decode_tp",
                                             "decode_ep",
                                             "decode_dp_attention",
                                             "decode_num_workers",
                                             "num_prefill_gpu",
                                             "num_decode_gpu",
                                             "image",
                                             "date",
                                             "run_url",
                                             "num_gpus"};

std::string row_where(const std::string& where, size_t i) {
  return where + ": row " + std::to_string(i + 1);
}

std::string text_of(const Json& row, const char* key) {
  auto it = row.find(key);
  if (it == row.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

int64_t integer_of(const Json& row, const char* key, const std::string& at, bool required) {
  auto it = row.find(key);
  if (it == row.end() || it->is_null() || (it->is_string() && it->get<std::string>().empty())) {
    if (required) throw BenchFormatError(at + ": field `" + std::string(key) + "` is missing");
    return 0;
  }
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_number_float() && std::floor(it->get<double>()) == it->get<double>()) {
    return static_cast<int64_t>(it->get<double>());
  }
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (end != s.c_str() && *end == '\0') return v;
  }
  throw BenchFormatError(at + ": field `" + std::string(key) + "` is " + it->dump() +
                         ", not an integer");
}

bool bool_of(const Json& row, const char* key) {
  auto it = row.find(key);
  if (it == row.end()) return false;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_string()) return it->get<std::string>() == "true" || it->get<std::string>() == "True";
  return false;
}

BenchPoint point_from_row(const Json& row, const std::string& at, const std::string& as_of) {
  if (!row.is_object()) throw BenchFormatError(at + ": not an object");
  BenchPoint p;
  p.hardware = text_of(row, "hw");
  if (p.hardware.empty()) p.hardware = text_of(row, "hardware");
  p.model = text_of(row, "infmax_model_prefix");
  if (p.model.empty()) p.model = text_of(row, "model");
  if (p.hardware.empty()) throw BenchFormatError(at + ": field `hw` is missing");
  if (p.model.empty()) {
    throw BenchFormatError(at + ": neither `infmax_model_prefix` nor `model` is given");
  }
  p.framework = text_of(row, "framework");
  p.precision = text_of(row, "precision");
  p.spec_decoding = text_of(row, "spec_decoding");
  p.disagg = bool_of(row, "disagg");
  p.isl = integer_of(row, "isl", at, true);
  p.osl = integer_of(row, "osl", at, true);
  p.conc = integer_of(row, "conc", at, true);
  p.gpus = integer_of(row, "tp", at, false);
  if (p.gpus == 0) {
    p.gpus = integer_of(row, "num_prefill_gpu", at, false) +
             integer_of(row, "num_decode_gpu", at, false);
  }
  p.date = text_of(row, "date");
  if (p.date.size() > 10) p.date.resize(10);
  if (p.date.empty()) p.date = as_of;
  const Json& metrics =
      row.contains("metrics") && row["metrics"].is_object() ? row["metrics"] : row;
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    if (kConfigFields.count(it.key()) > 0) continue;
    if (it->is_number()) {
      const double v = it->get<double>();
      if (!std::isfinite(v))
        throw BenchFormatError(at + ": metric `" + it.key() + "` is not finite");
      p.metrics[it.key()] = v;
    }
  }
  if (!p.metric("tput_per_gpu") && !p.metric("output_tput_per_gpu")) {
    throw BenchFormatError(at + ": no `tput_per_gpu` or `output_tput_per_gpu` metric");
  }
  return p;
}

std::vector<std::string> split_csv_line(const std::string& line, const std::string& at) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  if (quoted) throw BenchFormatError(at + ": unterminated quoted field");
  return cells;
}

Json csv_to_rows(const std::string& text, const std::string& where) {
  Json rows = Json::array();
  std::vector<std::string> header;
  size_t pos = 0;
  size_t line_no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string at = where + ": line " + std::to_string(line_no);
    std::vector<std::string> cells = split_csv_line(line, at);
    if (header.empty()) {
      header = std::move(cells);
      continue;
    }
    if (cells.size() != header.size()) {
      throw BenchFormatError(at + ": " + std::to_string(cells.size()) + " fields, the header has " +
                             std::to_string(header.size()));
    }
    Json row = Json::object();
    for (size_t i = 0; i < cells.size(); ++i) {
      char* end = nullptr;
      const double v = std::strtod(cells[i].c_str(), &end);
      const bool numeric = !cells[i].empty() && end != nullptr && *end == '\0';
      row[header[i]] = numeric && kConfigFields.count(header[i]) == 0 ? Json(v) : Json(cells[i]);
    }
    rows.push_back(std::move(row));
  }
  if (header.empty()) throw BenchFormatError(where + ": the CSV is empty");
  return rows;
}

}  // namespace

std::vector<BenchPoint> parse_bench_rows(const std::string& text, const std::string& format,
                                         const std::string& where, const std::string& as_of) {
  std::string fmt = format;
  if (fmt.empty() || fmt == "auto") {
    const size_t first = text.find_first_not_of(" \t\r\n");
    fmt = first != std::string::npos && (text[first] == '[' || text[first] == '{') ? "json" : "csv";
  }
  Json rows;
  if (fmt == "json") {
    try {
      rows = Json::parse(text);
    } catch (const Json::exception& e) {
      throw BenchFormatError(where + ": not valid JSON (" + e.what() + ")");
    }
    if (rows.is_object()) {
      for (const char* key : {"results", "rows", "data"}) {
        if (rows.contains(key) && rows[key].is_array()) {
          rows = rows[key];
          break;
        }
      }
    }
    if (!rows.is_array()) {
      throw BenchFormatError(where + ": expected a JSON array of benchmark rows (or an object " +
                             "with one under results, rows or data)");
    }
  } else if (fmt == "csv") {
    rows = csv_to_rows(text, where);
  } else {
    throw BenchFormatError(where + ": format '" + format + "' is not json, csv or auto");
  }
  std::vector<BenchPoint> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    out.push_back(point_from_row(rows[i], row_where(where, i), as_of));
  }
  if (out.empty()) throw BenchFormatError(where + ": no benchmark rows");
  return out;
}

}  // namespace skillrt::daily_trackers
