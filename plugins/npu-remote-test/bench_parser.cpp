#include "bench_parser.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <string>

#include "detail/lines.hpp"

namespace skillrt::npu_remote {

namespace {

using nlohmann::json;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// A row of '=' closes the block; vLLM prints 50 of them.
bool is_closing_rule(std::string_view line) {
  line = detail::strip(line);
  return line.size() >= 10 && line.find_first_not_of('=') == std::string_view::npos;
}

// "---------------Time to First Token----------------": a section title inside the block.
bool is_section_rule(std::string_view line) {
  line = detail::strip(line);
  return line.size() >= 10 && line.front() == '-' && line.back() == '-';
}

const std::map<std::string, std::string>& scalar_keys() {
  static const std::map<std::string, std::string> kKeys = {
      {"successful requests", "successful_requests"},
      {"failed requests", "failed_requests"},
      {"benchmark duration (s)", "duration_s"},
      {"total input tokens", "total_input_tokens"},
      {"total generated tokens", "total_generated_tokens"},
      {"request throughput (req/s)", "request_throughput"},
      {"input token throughput (tok/s)", "input_throughput"},
      {"output token throughput (tok/s)", "output_throughput"},
      {"peak output token throughput (tok/s)", "peak_output_throughput"},
      {"total token throughput (tok/s)", "total_token_throughput"},
      {"peak concurrent requests", "peak_concurrent_requests"},
      {"maximum request concurrency", "max_concurrency"},
      {"request rate configured (rps)", "request_rate"},
  };
  return kKeys;
}

json number_value(double v) {
  // Counts print without a fraction; keep them integers so equality checks read naturally.
  if (v == static_cast<double>(static_cast<long long>(v)) && v < 1e15 && v > -1e15) {
    return json(static_cast<long long>(v));
  }
  return json(v);
}

}  // namespace

std::optional<json> parse_vllm_benchmark(std::string_view log) {
  const std::vector<std::string_view> lines = detail::split_lines(log);
  size_t title = lines.size();
  for (size_t i = lines.size(); i-- > 0;) {
    if (lines[i].find("Serving Benchmark Result") != std::string_view::npos) {
      title = i;
      break;
    }
  }
  if (title == lines.size()) return std::nullopt;

  static const std::regex kLatency(
      R"(^(mean|median|p(\d+(?:\.\d+)?)) (ttft|tpot|itl|e2el) \(ms\)$)");
  json result = {{"line", title + 1}, {"complete", false}, {"other", json::object()}};
  bool any = false;
  for (size_t i = title + 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (is_closing_rule(line)) {
      result["complete"] = true;
      break;
    }
    if (is_section_rule(line) || detail::strip(line).empty()) continue;
    const size_t colon = line.rfind(':');
    if (colon == std::string_view::npos) break;  // the block ended without its rule
    const std::string label = lower(detail::strip(line.substr(0, colon)));
    const std::string_view raw = detail::strip(line.substr(colon + 1));
    double value = 0;
    const bool numeric = detail::leading_number(raw, value);
    any = true;
    if (auto it = scalar_keys().find(label); it != scalar_keys().end() && numeric) {
      result[it->second] = number_value(value);
      continue;
    }
    std::smatch m;
    if (numeric && std::regex_match(label, m, kLatency)) {
      const std::string stat = m[1].str()[0] == 'p' ? "p" + m[2].str() + "_ms" : m[1].str() + "_ms";
      result[m[3].str()][stat] = value;
      continue;
    }
    result["other"][label] = numeric ? number_value(value) : json(std::string(raw));
  }
  if (!any) return std::nullopt;
  return result;
}

}  // namespace skillrt::npu_remote
