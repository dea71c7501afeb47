// Generates N Python files with CUDA usage, decoys in strings and comments, and plain code; times
// gpu-migration-analyze's logic in-process (the complete result text, then freed) and ripgrep
// searching the same raw patterns over the same files, in one run, and prints both: wall time and
// CPU time (user + sys), because on a shared, loaded machine the wall time measures the
// neighbours as much as the program.
//
//   gpu_migration_bench [--files 5000] [--runs 5] [--dir DIR] [--rg rg] [--skillrt BIN]
//   gpu_migration_bench --repo PATH [--runs 5] ...   (an existing tree, read only, not generated)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "detail/analysis.hpp"
#include "gpu_migration.hpp"

namespace fs = std::filesystem;

namespace {

// The surface strings the rule table keys on, as a grep user would type them.
const char* const kRawPatterns[] = {"cuda",
                                    "nccl",
                                    "NCCL_",
                                    "DataParallel",
                                    "flash_attn",
                                    "xformers",
                                    "amp_C",
                                    "apex",
                                    "bitsandbytes",
                                    "grouped_gemm",
                                    "deepspeed",
                                    "triton",
                                    "cpp_extension",
                                    "CUDAExtension",
                                    "torch\\.compile",
                                    "float64",
                                    "\\.double\\(",
                                    "sdp_kernel",
                                    "enable_flash_sdp",
                                    "allow_tf32",
                                    "is_bf16_supported",
                                    "flash_attention_2",
                                    "clip_grad_norm_",
                                    "optim\\.(SGD|Adam|AdamW)",
                                    "\\.(transpose|permute)\\(.*\\)\\.(view|reshape)\\(",
                                    "jit\\.script",
                                    "ProcessGroupNCCL",
                                    "FusedAdam",
                                    "set_float32_matmul_precision"};

const char* const kUsage[] = {
    "    x = x.cuda()\n",
    "    torch.cuda.synchronize()\n",
    "    device = torch.device(\"cuda:0\")\n",
    "    dist.init_process_group(backend=\"nccl\")\n",
    "    scaler = torch.cuda.amp.GradScaler()\n",
    "    model = torch.nn.DataParallel(model)\n",
    "    y = q.transpose(1, 2).reshape(b, s, -1)\n",
    "    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)\n",
    "    major, minor = torch.cuda.get_device_capability()\n",
    "    model = torch.compile(model)\n",
    "    t = torch.randn(4, device=\"cuda\")\n",
    "    os.environ[\"NCCL_DEBUG\"] = \"INFO\"\n",
};

const char* const kDecoy[] = {
    "    # move the batch with .cuda() before the forward pass\n",
    "    msg = \"call torch.cuda.synchronize() to time it\"\n",
    "    \"\"\"Uses nccl and DataParallel in the original code.\"\"\"\n",
    "    log.info(f\"rank {rank} on cuda device {idx}\")\n",
};

const char* const kPlain[] = {
    "    total = sum(v * w for v, w in zip(values, weights))\n",
    "    if not items:\n        return None\n",
    "    result = {k: v for k, v in mapping.items() if v is not None}\n",
    "    for i in range(len(batch)):\n        out.append(batch[i] * scale + bias)\n",
    "    path = os.path.join(root, name + '.json')\n",
    "    data = np.asarray(values, dtype=np.float32).reshape(-1, 4)\n",
};

void generate(const fs::path& dir, int files) {
  std::mt19937 rng(42);
  fs::create_directories(dir);
  for (int i = 0; i < files; ++i) {
    const fs::path sub = dir / ("pkg" + std::to_string(i / 100));
    fs::create_directories(sub);
    std::ofstream out(sub / ("module_" + std::to_string(i) + ".py"));
    out << "\"\"\"Generated module " << i
        << ".\"\"\"\nimport os\n\nimport numpy as np\nimport torch\n"
        << "import torch.distributed as dist\n\n";
    for (int f = 0; f < 8; ++f) {
      out << "\n\ndef function_" << f << "(values, weights, batch, scale, bias, model, q, b, s):\n";
      for (int l = 0; l < 12; ++l) {
        const unsigned r = rng() % 100;
        if (r < 6) {
          out << kUsage[rng() % (sizeof kUsage / sizeof *kUsage)];
        } else if (r < 10) {
          out << kDecoy[rng() % (sizeof kDecoy / sizeof *kDecoy)];
        } else {
          out << kPlain[rng() % (sizeof kPlain / sizeof *kPlain)];
        }
      }
      out << "    return values\n";
    }
  }
}

struct Cost {
  double wall = 0;
  double cpu = 0;  // user + sys
};

// `who` is RUSAGE_SELF for work done in this process, RUSAGE_CHILDREN for a command run through
// system() (children's times are added once they have been waited for).
double cpu_seconds(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

Cost cost_of(int who, const std::function<void()>& fn) {
  const double c0 = cpu_seconds(who);
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
          cpu_seconds(who) - c0};
}

Cost median(const std::vector<Cost>& v) {
  std::vector<double> w, c;
  for (const Cost& x : v) {
    w.push_back(x.wall);
    c.push_back(x.cpu);
  }
  std::sort(w.begin(), w.end());
  std::sort(c.begin(), c.end());
  return {w[w.size() / 2], c[c.size() / 2]};
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

}  // namespace

int main(int argc, char** argv) {
  int files = 5000, runs = 5;
  std::string dir = (fs::temp_directory_path() / "gpu-migration-bench-corpus").string();
  std::string rg = "rg", skillrt, repo;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--files") files = std::atoi(argv[i + 1]);
    if (a == "--runs") runs = std::atoi(argv[i + 1]);
    if (a == "--dir") dir = argv[i + 1];
    if (a == "--rg") rg = argv[i + 1];
    if (a == "--skillrt") skillrt = argv[i + 1];
    if (a == "--repo") repo = argv[i + 1];
  }
  if (files < 1 || runs < 1) {
    std::fprintf(stderr, "gpu_migration_bench: --files and --runs must be at least 1\n");
    return 2;
  }
  if (repo.empty()) {
    fs::remove_all(dir);
    generate(dir, files);
  } else {
    // A real tree is only read: never the generated corpus's remove-and-write.
    dir = repo;
  }
  std::uintmax_t bytes = 0;
  files = 0;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    bytes += e.file_size();
    ++files;
  }
  std::printf("corpus: %d files, %.1f MB in %s\n", files, static_cast<double>(bytes) / 1e6,
              dir.c_str());

  std::string rg_args = " --no-config -n";
  for (const char* p : kRawPatterns) rg_args += std::string(" -e '") + p + "'";
  rg_args += " '" + dir + "' > /dev/null";
  const bool have_rg = std::system((rg + " --version > /dev/null 2>&1").c_str()) == 0;

  std::printf("load average before: %s (%u hardware threads)\n", load_average().c_str(),
              std::thread::hardware_concurrency());
  std::vector<Cost> ours, rg_times, rg1_times, cli_times;
  size_t result_bytes = 0;
  const nlohmann::json input = {{"repo", dir}};
  // One warm-up of each, so both read from the page cache.
  (void)skillrt::gpu_migration::analyze_text(input);
  if (have_rg) (void)std::system((rg + rg_args).c_str());
  for (int r = 0; r < runs; ++r) {
    // The skill's whole work for one call: the complete result, as the text the plugin hands to
    // the host, then freed.
    ours.push_back(cost_of(RUSAGE_SELF, [&] {
      const std::string result = skillrt::gpu_migration::analyze_text(input);
      result_bytes = result.size();
    }));
    if (have_rg) {
      rg_times.push_back(
          cost_of(RUSAGE_CHILDREN, [&] { (void)std::system((rg + rg_args).c_str()); }));
      rg1_times.push_back(
          cost_of(RUSAGE_CHILDREN, [&] { (void)std::system((rg + " -j1" + rg_args).c_str()); }));
    }
    if (!skillrt.empty()) {
      const std::string cmd = "'" + skillrt +
                              "' run gpu-migration-analyze --quiet --input '{\"repo\": \"" + dir +
                              "\"}' > /dev/null";
      cli_times.push_back(cost_of(RUSAGE_CHILDREN, [&] { (void)std::system(cmd.c_str()); }));
    }
  }
  size_t findings = 0, suggestions = 0;
  {
    // Where the time goes, once: the pieces analyze_text() is made of, then what the host adds in
    // `skillrt run` (parses the text, validates it, prints it indented), then the same result
    // built as Json, as analyze() and the skill before text_handler did.
    namespace d = skillrt::gpu_migration::detail;
    const d::RuleTable& table = d::builtin_rule_table();
    std::unique_ptr<d::Scanner> scanner;
    d::Walk walk;
    d::RepoScan scan;
    nlohmann::json rest;
    d::FindingsText findings_text;
    std::string text;
    const Cost t_index =
        cost_of(RUSAGE_SELF, [&] { scanner = std::make_unique<d::Scanner>(table); });
    const Cost t_walk = cost_of(RUSAGE_SELF, [&] {
      walk = d::walk_repo(fs::path(dir), d::WalkOptions{},
                          [&](const std::string& n) { return scanner->wants_text_file(n); });
    });
    const Cost t_scan = cost_of(RUSAGE_SELF, [&] {
      scan = d::scan_files(fs::path(dir), walk.files, *scanner, skillrt::gpu_migration::Hooks{},
                           d::ScanOptions{false, true});
    });
    // The same scan without writing findings: the search's own cost.
    const Cost t_bare = cost_of(RUSAGE_SELF, [&] {
      d::RepoScan bare =
          d::scan_files(fs::path(dir), walk.files, *scanner, skillrt::gpu_migration::Hooks{},
                        d::ScanOptions{false, false});
    });
    const Cost t_sum =
        cost_of(RUSAGE_SELF, [&] { rest = d::summarize(scan, table, &findings_text); });
    const Cost t_join = cost_of(RUSAGE_SELF, [&] { text = d::result_text(rest, findings_text); });
    const Cost t_free_scan = cost_of(RUSAGE_SELF, [&] {
      scan = d::RepoScan{};
      findings_text = d::FindingsText{};
    });
    // What the host does with it in `skillrt run`: parse the plugin's text back into a DOM (then
    // validates it, not timed here) and print it indented.
    nlohmann::json reparsed;
    std::string printed;
    const Cost t_parse = cost_of(RUSAGE_SELF, [&] { reparsed = nlohmann::json::parse(text); });
    const Cost t_print = cost_of(RUSAGE_SELF, [&] { printed = reparsed.dump(2); });
    findings = reparsed.at("findings").size();
    suggestions = reparsed.at("suggestions").size();
    const Cost t_free_parsed = cost_of(RUSAGE_SELF, [&] { reparsed = nullptr; });
    const Cost t_free = cost_of(RUSAGE_SELF, [&] { text = std::string(); });
    // The Json way, for comparison: build the result as Json, serialize it as the SDK does, free.
    nlohmann::json dom;
    std::string dom_text;
    const Cost t_dom = cost_of(RUSAGE_SELF, [&] { dom = skillrt::gpu_migration::analyze(input); });
    const Cost t_dom_dump = cost_of(RUSAGE_SELF, [&] {
      dom_text = dom.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    });
    const Cost t_dom_free = cost_of(RUSAGE_SELF, [&] { dom = nullptr; });
    auto phase = [](const char* what, const Cost& c) {
      std::printf("  phase %-52s wall %.3f s  cpu %.3f s\n", what, c.wall, c.cpu);
    };
    std::printf("phases of one analysis (once, after the runs):\n");
    phase("rule index", t_index);
    phase("walk", t_walk);
    phase("read + tokenize + match + findings text (threads)", t_scan);
    phase("  the same without findings text (scan state freed)", t_bare);
    phase("summary (verdicts, effort; findings text joined)", t_sum);
    phase("result text assembled", t_join);
    phase("scan state freed", t_free_scan);
    phase("result text freed (by the caller)", t_free);
    phase("  host: result text parsed", t_parse);
    phase("  host: parsed result printed with dump(2)", t_print);
    phase("  host: parsed result freed", t_free_parsed);
    phase("for comparison: result built as Json (analyze())", t_dom);
    phase("  Json result serialized (SDK dump)", t_dom_dump);
    phase("  Json result freed", t_dom_free);
    std::printf("  result text: %.1f MB, printed: %.1f MB\n",
                static_cast<double>(result_bytes) / 1e6, static_cast<double>(printed.size()) / 1e6);
    // The text must be what the SDK made of the Json result, byte for byte.
    const std::string fresh = skillrt::gpu_migration::analyze_text(input);
    std::printf("result text identical to dump() of the Json result: %s (%zu and %zu bytes)\n",
                fresh == dom_text ? "yes" : "NO", fresh.size(), dom_text.size());
    if (fresh != dom_text) return 1;
  }
  {
    // The comparison is only fair if every finding carries what ripgrep's lines lack: its domain
    // and effort, and its rule's alternative (listed once per rule in `rules`).
    const auto result = nlohmann::json::parse(skillrt::gpu_migration::analyze_text(input));
    size_t complete = 0, total = 0;
    for (const char* key : {"findings", "suggestions"}) {
      for (const auto& f : result.at(key)) {
        ++total;
        const auto& rule = result.at("rules").at(f.at("rule").get<std::string>());
        if (!f.at("domain").get<std::string>().empty() &&
            !f.at("effort").get<std::string>().empty() &&
            !rule.at("alternative").get<std::string>().empty()) {
          ++complete;
        }
      }
    }
    std::printf("%zu of %zu findings with domain, effort and their rule's alternative\n", complete,
                total);
  }
  auto report = [](const char* what, const Cost& c) {
    std::printf("%-58s wall %.3f s  cpu %.3f s\n", what, c.wall, c.cpu);
  };
  std::printf(
      "medians over %d runs; %zu findings + %zu suggestions, each with domain, rule, effort "
      "(alternative and source once per rule)\n",
      runs, findings, suggestions);
  const Cost in_process = median(ours);
  report("gpu-migration analyze (in-process, result text)", in_process);
  if (!cli_times.empty()) {
    report("skillrt run gpu-migration-analyze (process, JSON out)", median(cli_times));
  }
  if (have_rg) {
    const Cost rg_default = median(rg_times), rg_one = median(rg1_times);
    const std::string what =
        "ripgrep, " + std::to_string(sizeof kRawPatterns / sizeof *kRawPatterns) + " raw patterns";
    report(what.c_str(), rg_default);
    report("ripgrep -j1", rg_one);
    std::printf("ratio analyze / rg: wall %.2fx, cpu %.2fx; vs rg -j1: wall %.2fx, cpu %.2fx\n",
                in_process.wall / rg_default.wall, in_process.cpu / rg_default.cpu,
                in_process.wall / rg_one.wall, in_process.cpu / rg_one.cpu);
    if (!cli_times.empty()) {
      const Cost cli = median(cli_times);
      std::printf("ratio skillrt run / rg: wall %.2fx, cpu %.2fx\n", cli.wall / rg_default.wall,
                  cli.cpu / rg_default.cpu);
    }
  } else {
    std::printf("ripgrep not found ('%s'): install Debian package ripgrep for the comparison\n",
                rg.c_str());
  }
  std::printf("load average after: %s\n", load_average().c_str());
  return 0;
}
