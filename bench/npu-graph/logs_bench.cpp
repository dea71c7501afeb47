// Streams generated plog-style logs of 20 MB and 200 MB through npu-graph-logs' scanner and
// prints wall time, throughput and peak RSS after each, next to `grep -c ERROR` and `wc -l` on
// the same file (what a user would reach for first). Flat memory shows as the same peak RSS
// after the 20 MB and the 200 MB run.
//
//   npu_graph_logs_bench [size_mb ...]   (default: 20 200); files go to $TMPDIR
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "log_scan.hpp"

namespace fs = std::filesystem;

namespace {

long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// A deterministic mix: mostly INFO, some WARNING with varying ids, rare ERRORs with codes, and
// a torch_npu error block near the end.
void generate(const fs::path& path, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  std::string line;
  size_t written = 0;
  unsigned long i = 0;
  char buf[512];
  while (written < bytes) {
    const int sec = static_cast<int>(i / 4000 % 60);
    const int min = static_cast<int>(i / 240000 % 60);
    int n;
    if (i % 50 == 7) {
      n = std::snprintf(buf, sizeof buf,
                        "[WARNING] HCCL(4101,python3):2024-08-30-04:%02d:%02d.%06lu "
                        "[hccl_comm.cc:120]4108 link retry %lu to remote 0x7fa%06lx\n",
                        min, sec, i % 1000000, i, i);
    } else if (i % 100000 == 99999) {
      n = std::snprintf(buf, sizeof buf,
                        "[ERROR] RUNTIME(4101,python3):2024-08-30-04:%02d:%02d.%06lu "
                        "[stream.cc:1135]4108 GetError: Stream Synchronize failed, task_id=%lu, "
                        "error code is 507014\n",
                        min, sec, i % 1000000, i);
    } else {
      n = std::snprintf(buf, sizeof buf,
                        "[INFO] RUNTIME(4101,python3):2024-08-30-04:%02d:%02d.%06lu "
                        "[task.cc:88]4108 launch kernel task id %lu stream %lu block_dim 48\n",
                        min, sec, i % 1000000, i, i % 8);
    }
    out.write(buf, n);
    written += static_cast<size_t>(n);
    ++i;
  }
  out << "RuntimeError: call aclnnSoftmax failed, detail:EZ9999: Inner Error!\n"
         "[ERROR] 2024-08-30-05:00:00 (PID:4101, Device:0, RankID:0) ERR01100 OPS call acl api "
         "failed\n";
}

double run_shell(const std::string& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(cmd.c_str());
  (void)rc;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes_mb;
  for (int i = 1; i < argc; ++i) sizes_mb.push_back(std::strtoul(argv[i], nullptr, 10));
  if (sizes_mb.empty()) sizes_mb = {20, 200};
  std::printf("%-8s %-10s %-10s %-12s %-14s %-12s %-10s\n", "size_MB", "scan_s", "MB/s",
              "peak_RSS_MB", "grep_-c_s", "wc_-l_s", "errors");
  std::printf("%-8s %-10s %-10s %-12.1f\n", "start", "-", "-", peak_rss_kb() / 1024.0);
  for (size_t mb : sizes_mb) {
    const fs::path path =
        fs::temp_directory_path() / ("npu_graph_bench_" + std::to_string(mb) + ".log");
    generate(path, mb << 20);
    const auto size = fs::file_size(path);
    // Warm the page cache so that every contender reads from memory.
    run_shell("cat '" + path.string() + "' > /dev/null");
    const auto t0 = std::chrono::steady_clock::now();
    const nlohmann::json r = skillrt::npu_graph::scan_logs({path.string()}, {});
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rss = peak_rss_kb() / 1024.0;
    const double grep_s = run_shell("grep -c ERROR '" + path.string() + "' > /dev/null");
    const double wc_s = run_shell("wc -l '" + path.string() + "' > /dev/null");
    std::printf("%-8zu %-10.3f %-10.1f %-12.1f %-14.3f %-12.3f %-10zu\n", mb, secs,
                size / 1048576.0 / secs, rss, grep_s, wc_s, r["files"][0]["errors"].get<size_t>());
    std::cout << "  first_error: " << r["first_error"]["text"].get<std::string>().substr(0, 90)
              << "\n  timeline: " << r["timeline"].size() << " codes, top pattern x"
              << (r["patterns"].empty() ? 0 : r["patterns"][0]["count"].get<size_t>()) << "\n";
    fs::remove(path);
  }
  return 0;
}
