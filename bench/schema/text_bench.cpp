// check_text() against the DOM path it replaces on the MCP hot path: nlohmann::json::parse and
// is_valid() on the same text, side by side in one run.
//
// Cases: the fixture-echo input {"text":"hello"}, a ~200-byte tool result of the hello skill,
// every schema under schemas/skills/ with its "examples", and the valid instances of
// bench/schema/cases/. Run from the repository root: build-dir/bench/text_bench.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "schema/compiled_schema.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using skillrt::bench::measure;
using skillrt::bench::median;
using skillrt::bench::read_json;
using skillrt::schema::CompiledSchema;
using skillrt::schema::TextVerdict;

namespace {

struct Case {
  std::string name;
  json schema;
  std::vector<std::string> texts;
};

std::vector<Case> load_cases() {
  std::vector<Case> cases;
  cases.push_back({"fixture-echo input",
                   read_json("plugins/mcp-fixtures/schemas/echo.input.json", "text_bench"),
                   {R"({"text":"hello"})"}});
  // A result as the hello skill returns it, about 200 bytes.
  const json result = {{"greeting", "Hello, world! Nice to meet you."},
                       {"greetings",
                        {"Hello, world! Nice to meet you.", "Hello again, world!",
                         "Hello a third time, world.", "And hello once more."}},
                       {"language", "en"}};
  cases.push_back({"hello output (" + std::to_string(result.dump().size()) + " B)",
                   read_json("schemas/skills/hello.output.json", "text_bench"),
                   {result.dump()}});
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator("schemas/skills")) files.push_back(entry.path());
  for (const auto& entry : fs::directory_iterator("bench/schema/cases")) {
    if (entry.path().string().ends_with(".input.json")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    Case c;
    c.name = file.filename().string();
    c.name.resize(c.name.size() - std::string(".json").size());
    c.schema = read_json(file, "text_bench");
    for (const auto& i : c.schema.value("examples", json::array())) c.texts.push_back(i.dump());
    std::string stem = file.filename().string();
    stem.resize(stem.size() - std::string(".input.json").size());
    const fs::path instances = file.parent_path() / (stem + ".instances.json");
    if (file.string().ends_with(".input.json") && fs::exists(instances)) {
      for (const auto& i : read_json(instances, "text_bench").value("valid", json::array())) {
        c.texts.push_back(i.dump());
      }
    }
    if (!c.texts.empty()) cases.push_back(std::move(c));
  }
  return cases;
}

std::string rate(double per_second) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2);
  if (per_second >= 1e6) {
    out << per_second / 1e6 << "M";
  } else {
    out << per_second / 1e3 << "k";
  }
  return out.str();
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a;
  std::string b;
  std::string c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  double min_seconds = 0.2;
  int runs = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--min-time") {
      min_seconds = std::stod(argv[i + 1]);
    } else if (arg == "--runs") {
      runs = std::stoi(argv[i + 1]);
    }
  }
  std::cout << "load before: " << load_average() << "\n\n";
  std::cout << "| case | texts | mean bytes | parse + is_valid | check_text | speed-up | "
               "text path |\n|---|---|---|---|---|---|---|\n";
  double log_sum = 0;
  int rows = 0;
  for (const auto& c : load_cases()) {
    auto compiled = CompiledSchema::compile(c.schema);
    if (!compiled) {
      std::cerr << "text_bench: " << c.name << " does not compile: " << compiled.error().message
                << "\n";
      return 1;
    }
    const auto& schema = **compiled;
    // Every verdict is checked first: a fast wrong answer is worthless.
    std::size_t bytes = 0;
    std::size_t on_text = 0;
    for (const auto& text : c.texts) {
      bytes += text.size();
      const bool dom = schema.is_valid(json::parse(text));
      const TextVerdict verdict = schema.check_text(text);
      if (verdict == TextVerdict::kUnsupported) continue;
      ++on_text;
      if ((verdict == TextVerdict::kValid) != dom || verdict == TextVerdict::kMalformed) {
        std::cerr << "text_bench: " << c.name << ": check_text disagrees with the DOM on " << text
                  << "\n";
        return 1;
      }
    }
    const auto dom = [&](const std::string& text) {
      return static_cast<std::size_t>(schema.is_valid(json::parse(text)));
    };
    const auto text_path = [&](const std::string& text) {
      return static_cast<std::size_t>(schema.check_text(text));
    };
    const double dom_rate = median(measure(dom, c.texts, min_seconds, runs, 256));
    const double text_rate = median(measure(text_path, c.texts, min_seconds, runs, 256));
    log_sum += std::log(text_rate / dom_rate);
    ++rows;
    std::cout << "| " << c.name << " | " << c.texts.size() << " | " << bytes / c.texts.size()
              << " | " << rate(dom_rate) << " | " << rate(text_rate) << " | " << std::fixed
              << std::setprecision(1) << text_rate / dom_rate << "x | " << on_text << "/"
              << c.texts.size() << " |\n";
  }
  std::cout << "\ngeometric mean speed-up over " << rows << " rows: " << std::fixed
            << std::setprecision(2) << std::exp(log_sum / rows) << "x\n";
  std::cout << "load after: " << load_average() << "\n";
  return 0;
}
