// Reads the "Serving Benchmark Result" block that `vllm bench serve` (and the older
// benchmarks/benchmark_serving.py) prints, into metrics an agent can compare across runs.
#ifndef SKILLRT_NPU_REMOTE_TEST_BENCH_PARSER_HPP_
#define SKILLRT_NPU_REMOTE_TEST_BENCH_PARSER_HPP_

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace skillrt::npu_remote {

// The last result block in `log`, or nullopt when the log has none. The object holds the
// counters (successful_requests, failed_requests, duration_s, total_input_tokens,
// total_generated_tokens), the throughputs (request_throughput, input_throughput,
// output_throughput, peak_output_throughput, total_token_throughput), and per latency kind
// (ttft, tpot, itl, e2el) an object {mean_ms, median_ms, p99_ms, ...}. Lines of the block that
// name nothing above go to "other" by their label, so a newer vLLM loses nothing; "line" is the
// 1-based line of the block's title and "complete" says whether its closing rule was seen.
std::optional<nlohmann::json> parse_vllm_benchmark(std::string_view log);

}  // namespace skillrt::npu_remote

#endif  // SKILLRT_NPU_REMOTE_TEST_BENCH_PARSER_HPP_
