// Benchmark of ci-static-errors-fix: 2,000 files (1,200 Python, 800 C++) with 20,000 whitelisted
// findings (10 per file) from a flake8 text report, lintrunner JSON lines and cpplint text.
//
//   1. The whole skill, dry run, verify off (ingest, scope, read, tokenize, fix, prove every fix,
//      patch, Markdown): the number the target (< 5 s) is about.
//   2. The engine alone, side by side on the same loaded files: fixing with proofs vs fixing alone
//      (the baseline), to show what the proofs cost.
//   3. Optionally (--flake8) flake8 itself on the Python files, to check the synthetic report
//      against the real linter and to put the numbers next to the linter's own run time.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "engine.hpp"
#include "ingest.hpp"
#include "skill.hpp"
#include "system.hpp"

using namespace skillrt::ci_fix;
using Clock = std::chrono::steady_clock;

namespace {

double secs(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One Python module with ten functions, each carrying one violation; returns the report lines.
std::string python_file(int n, std::string* report, const std::string& path) {
  std::ostringstream src;
  std::ostringstream rep;
  int line = 1;
  auto emit = [&](const std::string& s) {
    src << s << "\n";
    ++line;
  };
  emit("\"\"\"Synthetic module " + std::to_string(n) + " for the ci-fix benchmark.\"\"\"");
  emit("import math");
  for (int k = 0; k < 10; ++k) {
    bool e302 = k == 3;
    emit("");
    if (!e302) emit("");
    int def_line = line;
    emit("def func_" + std::to_string(k) + "(a, b):");
    if (e302) rep << path << ":" << def_line << ":1: E302 expected 2 blank lines, found 1\n";
    emit("    \"\"\"Compute something about a and b (" + std::to_string(k) + ").\"\"\"");
    emit("    total = math.sqrt(a * a + b * b)");
    switch (k) {
      case 0:
        rep << path << ":" << line << ":22: W291 trailing whitespace\n";
        emit("    x = total + a + b   ");
        break;
      case 1:
        rep << path << ":" << line << ":11: E231 missing whitespace after ','\n";
        emit("    x = [a,b, total]");
        break;
      case 2:
        rep << path << ":" << line << ":6: E225 missing whitespace around operator\n";
        emit("    x=total");
        break;
      case 3:
        emit("    x = total");
        break;
      case 4:
        emit("    x = total");
        emit("");
        emit("");
        rep << path << ":" << line << ":5: E303 too many blank lines (2)\n";
        break;
      case 5:
        rep << path << ":" << line << ":18: E261 at least two spaces before inline comment\n";
        emit("    x = total * 2 # doubled");
        break;
      case 6:
        rep << path << ":" << line << ":5: E265 block comment should start with '# '\n";
        emit("    #keep the sum");
        emit("    x = total");
        break;
      case 7:
        emit("    x = total");
        break;
      case 8:
        rep << path << ":" << line << ":15: E203 whitespace before ','\n";
        emit("    x = (total , a)");
        break;
      case 9:
        emit("    x = max(total, a)");
        rep << path << ":" << line << ":13: E201 whitespace after '('\n";
        emit("    x = abs( x)");
        break;
    }
    emit("    if x and b > 0:");
    emit("        x = x");
    emit("    values = [total, a, b, x]");
    emit("    for v in values:");
    emit("        total += v");
    if (k == 7) {
      rep << path << ":" << line << ":11: E271 multiple spaces after keyword\n";
      emit("    return  total");
    } else {
      emit("    return total");
    }
  }
  *report += rep.str();
  return src.str();
}

// One C++ file with ten whitelisted findings: lintrunner SPACES (5) and TABS (3), cpplint
// whitespace/end_of_line (1) and whitespace/comments (1).
std::string cpp_file(int n, std::string* lint_jsonl, std::string* cpplint,
                     const std::string& path) {
  std::ostringstream src;
  int line = 1;
  auto emit = [&](const std::string& s) {
    src << s << "\n";
    ++line;
  };
  auto spaces = [&](int l) {
    nlohmann::json j = {{"path", path},
                        {"line", l},
                        {"char", nullptr},
                        {"code", "SPACES"},
                        {"severity", "warning"},
                        {"name", "trailing spaces"},
                        {"original", nullptr},
                        {"replacement", nullptr},
                        {"description", "This line has trailing spaces; please remove them."}};
    *lint_jsonl += j.dump() + "\n";
  };
  auto tabs = [&](int l) {
    nlohmann::json j = {{"path", path},
                        {"line", l},
                        {"char", nullptr},
                        {"code", "TABS"},
                        {"severity", "warning"},
                        {"name", "saw some tabs"},
                        {"original", nullptr},
                        {"replacement", nullptr},
                        {"description", "This line has tabs; please replace them with spaces."}};
    *lint_jsonl += j.dump() + "\n";
  };
  emit("// Synthetic op-plugin style source " + std::to_string(n) + " for the ci-fix benchmark.");
  emit("#include <vector>");
  emit("");
  emit("namespace op_api {");
  for (int k = 0; k < 10; ++k) {
    emit("");
    emit("int kernel_" + std::to_string(k) + "(const std::vector<int>& v, int scale) {");
    emit("  int acc = 0;");
    switch (k) {
      case 0:
      case 1:
      case 2:
      case 3:
      case 4:
        spaces(line);
        emit("  for (int x : v) {  ");
        break;
      case 5:
      case 6:
      case 7:
        tabs(line);
        emit("\tfor (int x : v) {");
        break;
      case 8:
        *cpplint += path + ":" + std::to_string(line) +
                    ":  Line ends in whitespace.  Consider deleting these extra spaces.  "
                    "[whitespace/end_of_line] [4]\n";
        emit("  for (int x : v) {\t");
        break;
      case 9:
        *cpplint +=
            path + ":" + std::to_string(line) +
            ":  At least two spaces is best between code and comments  [whitespace/comments] [2]\n";
        emit("  for (int x : v) { // accumulate");
        break;
    }
    emit("    acc += x * scale;");
    emit("    if (acc > 1000) {");
    emit("      acc -= 1000;");
    emit("    }");
    emit("  }");
    emit("  return acc;");
    emit("}");
  }
  emit("");
  emit("}  // namespace op_api");
  return src.str();
}

}  // namespace

int main(int argc, char** argv) {
  bool check_flake8 = false;
  bool keep = false;
  int files = 2000;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--flake8") check_flake8 = true;
    if (a == "--keep") keep = true;
    if (a == "--files" && i + 1 < argc) files = std::stoi(argv[++i]);
  }
  std::string root = make_temp_dir("ci-fix-bench-");
  std::string report, lint_jsonl, cpplint;
  int py = files * 3 / 5;
  for (int n = 0; n < files; ++n) {
    if (n < py) {
      std::string path =
          "torch_npu/mod" + std::to_string(n / 100) + "/m" + std::to_string(n) + ".py";
      write_file(root + "/" + path, python_file(n, &report, path));
    } else {
      std::string path =
          "op_plugin/ops/d" + std::to_string(n / 100) + "/op" + std::to_string(n) + ".cpp";
      write_file(root + "/" + path, cpp_file(n, &lint_jsonl, &cpplint, path));
    }
  }
  std::string all = report + lint_jsonl + cpplint;
  write_file(root + "/lint.txt", all);
  size_t lines = 0;
  for (char c : all) lines += c == '\n';
  std::printf("corpus: %d files (%d Python, %d C++) in %s; report: %zu findings\n", files, py,
              files - py, root.c_str(), lines);

  // 1. The whole skill.
  nlohmann::json input = {
      {"repo", root}, {"report", "lint.txt"}, {"verify", false}, {"report_dir", root + "/out"}};
  auto t0 = Clock::now();
  nlohmann::json out = run_ci_fix(input);
  auto t1 = Clock::now();
  const auto& s = out.at("summary");
  std::printf(
      "skill (dry run, proofs on, verify off): %.3f s; findings %d, fixed %d, residual %d, "
      "fixes %d, proofs run %d, proofs failed %d, patch %zu bytes\n",
      secs(t0, t1), s.at("findings").get<int>(), s.at("fixed").get<int>(),
      s.at("residual").get<int>(), s.at("fixes").get<int>(), s.at("proofs_run").get<int>(),
      s.at("proofs_failed").get<int>(), out.at("patch").get<std::string>().size());
  if (s.at("residual").get<int>() != 0) {
    for (const auto& r : out.at("residual")) {
      std::printf("  residual: %s:%d %s %s\n", r.at("file").get<std::string>().c_str(),
                  r.at("line").get<int>(), r.at("rule").get<std::string>().c_str(),
                  r.at("reason").get<std::string>().c_str());
      break;
    }
  }

  // 2. The engine alone: with proofs vs fixing alone, same files, same findings.
  IngestResult ir = ingest_report(all, "auto");
  Whitelist wl = Whitelist::parse(embedded_data("whitelist.json"));
  TypoTable typos = TypoTable::parse(embedded_data("typos.tsv"));
  struct Loaded {
    std::string path, text;
    std::unique_ptr<LineIndex> lines;
    TokenStream tokens;
    FileContext ctx;
    std::vector<size_t> ids;
  };
  std::map<std::string, Loaded> loaded;
  auto tl0 = Clock::now();
  for (size_t id = 0; id < ir.findings.size(); ++id) {
    Loaded& l = loaded[ir.findings[id].path];
    if (l.path.empty()) {
      l.path = ir.findings[id].path;
      l.text = *read_file(root + "/" + l.path);
    }
    l.ids.push_back(id);
  }
  double tokenize_s = 0;
  for (auto& [p, l] : loaded) {
    l.lines = std::make_unique<LineIndex>(l.text);
    auto a = Clock::now();
    l.tokens = tokenize(l.text, language_for(p));
    tokenize_s += secs(a, Clock::now());
    l.ctx.rel_path = p;
    l.ctx.lang = language_for(p);
    l.ctx.text = l.text;
    l.ctx.lines = l.lines.get();
    l.ctx.tokens = &l.tokens;
    l.ctx.typos = &typos;
    prepare_context(&l.ctx);
  }
  auto tl1 = Clock::now();
  for (bool prove : {false, true}) {
    EngineOptions opt;
    opt.prove = prove;
    double fix_s = 0, proof_s = 0;
    size_t fixes = 0, proofs = 0, failed = 0;
    auto a = Clock::now();
    for (auto& [p, l] : loaded) {
      FileResult r = process_file(l.ctx, ir.findings, l.ids, wl, opt);
      fix_s += r.fix_seconds;
      proof_s += r.proof_seconds;
      fixes += r.fixes.size();
      proofs += r.proofs_run;
      for (const auto& x : r.residual) failed += x.kind == "proof-failed";
    }
    auto b = Clock::now();
    std::printf(
        "engine, %s: %.3f s wall (fixing %.3f s, proofs %.3f s); %zu fixes, %zu proofs, %zu "
        "failed\n",
        prove ? "fixing + proofs" : "fixing alone  ", secs(a, b), fix_s, proof_s, fixes, proofs,
        failed);
  }
  std::printf("loading + first tokenization of %zu files: %.3f s (tokenizing %.3f s)\n",
              loaded.size(), secs(tl0, tl1), tokenize_s);

  // 3. flake8 on the same Python files: the synthetic report must be what flake8 reports, and
  //    after applying the fixes (with the skill's own verification) flake8 must report nothing.
  if (check_flake8) {
    std::vector<std::string> argv = {"flake8", "--format=default", "torch_npu"};
    auto a = Clock::now();
    CommandResult r = run_command(argv, root, 1200);
    auto b = Clock::now();
    IngestResult real = ingest_report(r.out, "flake8");
    std::multiset<std::tuple<std::string, uint32_t, std::string>> got, want;
    for (const Finding& f : real.findings) got.insert({f.path, f.line, f.code});
    for (const Finding& f : ingest_report(report, "flake8").findings)
      want.insert({f.path, f.line, f.code});
    std::printf("flake8 on %d Python files: %.3f s, %zu findings; synthetic report identical: %s\n",
                py, secs(a, b), real.findings.size(), got == want ? "yes" : "NO");
    nlohmann::json applied = run_ci_fix({{"repo", root}, {"report", "lint.txt"}, {"apply", true}});
    for (const auto& v : applied.at("verification")) {
      std::printf("apply + verify: %s before %d, after %d, gone %d, new %zu\n",
                  v.at("tool").get<std::string>().c_str(), v.value("before", 0),
                  v.value("after", 0), v.value("gone", 0),
                  v.contains("new") ? v.at("new").size() : 0);
    }
    CommandResult again = run_command(argv, root, 1200);
    std::printf("flake8 after apply: %zu findings\n",
                ingest_report(again.out, "flake8").findings.size());
  }
  if (keep) {
    std::printf("corpus kept in %s\n", root.c_str());
  } else {
    remove_tree(root);
  }
  return 0;
}
