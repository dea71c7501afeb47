// The review as a whole: reports written atomically and escaped, the docs left untouched, clear
// errors for bad input, progress and cancellation, the HTML report in a real browser, and the
// skill end to end through the skillrt binary.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <map>

#include "detail/text.hpp"
#include "test_support.hpp"

using namespace doc_review_test;
using skillrt::doc_review::Cancelled;
using skillrt::doc_review::InputError;
using skillrt::doc_review::ReviewHooks;

namespace {

std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out[e.path().string()] = read_file(e.path());
  return out;
}

// A tree whose findings carry text that must be escaped in both reports.
void write_hostile_tree(const TempDir& dir) {
  write_file(dir / "docs/README.md",
             "# Index <script>alert(1)</script>\n\n"
             "- [a|b](missing<svg/onload=alert(1)>.md)\n- [ok](page.md)\n");
  write_file(dir / "docs/page.md",
             "# Page\n\n| a | b |\n|---|---|\n| `x|y` | 1 | *bold* |\n\n"
             "```python\nprint(\"</code></td><script>x</script>\" +)\n```\n");
}

std::string error_of(const json& input) {
  try {
    review(input);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t b = 0;
  while (b <= p.size()) {
    size_t e = p.find(':', b);
    if (e == std::string::npos) e = p.size();
    const fs::path cand = fs::path(p.substr(b, e - b)) / name;
    if (::access(cand.c_str(), X_OK) == 0) return cand.string();
    b = e + 1;
  }
  return "";
}

}  // namespace

TEST_CASE("reports: Markdown and HTML written atomically into output_dir, docs untouched",
          "[doc-review][review]") {
  TempDir dir("reports");
  write_hostile_tree(dir);
  const auto before = snapshot(dir / "docs");
  const json out =
      review({{"docs", (dir / "docs").string()}, {"output_dir", (dir / "out/nested").string()}});
  CHECK(snapshot(dir / "docs") == before);
  const fs::path md = out.at("reports").at("markdown").get<std::string>();
  const fs::path html = out.at("reports").at("html").get<std::string>();
  CHECK(md == fs::weakly_canonical(dir / "out/nested/doc-review.md"));
  CHECK(html == fs::weakly_canonical(dir / "out/nested/doc-review.html"));
  REQUIRE(fs::exists(md));
  REQUIRE(fs::exists(html));
  // No temporary files left behind.
  for (const auto& e : fs::directory_iterator(dir / "out/nested"))
    CHECK(e.path().filename().string()[0] != '.');
  // A second run replaces them.
  review({{"docs", (dir / "docs").string()}, {"output_dir", (dir / "out/nested").string()}});
  CHECK(fs::exists(md));
}

TEST_CASE("reports: every piece of page text is escaped", "[doc-review][review]") {
  TempDir dir("escape");
  write_hostile_tree(dir);
  const json out =
      review({{"docs", (dir / "docs").string()}, {"output_dir", (dir / "out").string()}});
  INFO(dump_findings(out));
  REQUIRE(findings(out, "broken-link").size() == 1);
  REQUIRE(findings(out, "python-syntax").size() == 1);
  const std::string html = read_file(out.at("reports").at("html").get<std::string>());
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<svg") == std::string::npos);
  CHECK(html.find("&lt;svg/onload=alert(1)&gt;") != std::string::npos);
  CHECK(html.find("&lt;/code&gt;&lt;/td&gt;&lt;script&gt;") != std::string::npos);
  // Self-contained: no external resource, no script.
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  const std::string md = read_file(out.at("reports").at("markdown").get<std::string>());
  // Outside code spans (where text is literal) no tag survives.
  std::string md_outside_code;
  {
    std::istringstream in(md);
    std::string l;
    while (std::getline(in, l))
      md_outside_code += skillrt::doc_review::detail::mask_code_spans(l) + "\n";
  }
  CHECK(md_outside_code.find("<svg") == std::string::npos);
  CHECK(md_outside_code.find("<script") == std::string::npos);
  CHECK(md.find("&lt;svg/onload=alert(1)&gt;") != std::string::npos);
  // Every table row of the findings keeps its five columns: pipes inside cells are escaped.
  bool in_table = false;
  for (const std::string& line : [&] {
         std::vector<std::string> v;
         std::istringstream in(md);
         std::string l;
         while (std::getline(in, l)) v.push_back(l);
         return v;
       }()) {
    if (line.rfind("| severity |", 0) == 0) in_table = true;
    if (!in_table || line.empty() || line[0] != '|') {
      in_table = in_table && !line.empty();
      continue;
    }
    int cells = 0;
    for (size_t k = 0; k < line.size(); ++k) {
      if (line[k] == '\\') {
        ++k;
        continue;
      }
      if (line[k] == '|') ++cells;
    }
    INFO(line);
    CHECK(cells == 6);
  }
}

TEST_CASE("the HTML report opens in a headless browser without console errors",
          "[doc-review][review][browser]") {
  const std::string chromium = find_on_path("chromium");
  if (chromium.empty()) {
    FAIL(
        "chromium is not installed, so the HTML report cannot be checked in a browser; run "
        "scripts/install-deps.sh (it installs Debian's chromium) and run the tests again");
  }
  TempDir dir("browser");
  write_hostile_tree(dir);
  const json out =
      review({{"docs", (dir / "docs").string()}, {"output_dir", (dir / "out").string()}});
  const std::string html = out.at("reports").at("html").get<std::string>();
  const fs::path dom = dir / "dom.html", log = dir / "chromium.log";
  const std::string cmd = "timeout 120 '" + chromium +
                          "' --headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0 "
                          "--user-data-dir='" +
                          (dir / "profile").string() + "' --dump-dom 'file://" + html + "' > '" +
                          dom.string() + "' 2> '" + log.string() + "'";
  const int status = std::system(cmd.c_str());
  const std::string stderr_text = read_file(log);
  REQUIRE(WIFEXITED(status));
  INFO(stderr_text);
  REQUIRE(WEXITSTATUS(status) == 0);
  // Console messages (errors, uncaught exceptions, failed loads) are logged as ":CONSOLE";
  // the rest of chromium's log (no D-Bus in a container, no GPU) is about the machine.
  std::istringstream lines(stderr_text);
  std::string line;
  std::string console;
  while (std::getline(lines, line))
    if (line.find(":CONSOLE") != std::string::npos) console += line + "\n";
  CHECK(console.empty());
  const std::string rendered = read_file(dom);
  CHECK(rendered.find("Documentation review") != std::string::npos);
  CHECK(rendered.find("broken-link") != std::string::npos);
  CHECK(rendered.find("<script>alert") == std::string::npos);
}

TEST_CASE("bad input: clear errors that name the field and what to do", "[doc-review][review]") {
  TempDir dir("bad");
  write_file(dir / "docs/page.md", "# Page\n");
  write_file(dir / "notes.txt", "text\n");
  write_file(dir / "empty/readme.txt", "text\n");
  CHECK(error_of({{"docs", (dir / "nope").string()}}).find("'docs' path") != std::string::npos);
  CHECK(error_of({{"docs", (dir / "nope").string()}}).find("does not exist") != std::string::npos);
  CHECK(error_of({{"docs", (dir / "notes.txt").string()}}).find("is not Markdown") !=
        std::string::npos);
  CHECK(error_of({{"docs", (dir / "empty").string()}}).find("holds no Markdown pages") !=
        std::string::npos);
  CHECK(error_of({{"docs", (dir / "docs").string()}, {"code", (dir / "notes.txt").string()}})
            .find("is not a folder") != std::string::npos);
  CHECK(error_of({{"docs", (dir / "docs").string()}, {"code", (dir / "missing").string()}})
            .find("'code' path") != std::string::npos);
  const std::string inside =
      error_of({{"docs", (dir / "docs").string()}, {"output_dir", (dir / "docs/out").string()}});
  CHECK(inside.find("inside the docs tree") != std::string::npos);
  CHECK(error_of({{"docs", (dir / "docs").string()}, {"output_dir", (dir / "docs").string()}})
            .find("inside the docs tree") != std::string::npos);
  CHECK(
      error_of({{"docs", (dir / "docs/page.md").string()}, {"output_dir", (dir / "docs").string()}})
          .find("folder of the page") != std::string::npos);
  CHECK(error_of({{"docs", (dir / "docs").string()}, {"output_dir", (dir / "notes.txt").string()}})
            .find("is not a folder") != std::string::npos);
  CHECK(error_of({{"docs", (dir / "docs").string()}, {"axes", {"findable", "fun"}}})
            .find("unknown axis 'fun'") != std::string::npos);
  // Nothing was written into the docs.
  CHECK_FALSE(fs::exists(dir / "docs/out"));
  CHECK_FALSE(fs::exists(dir / "docs/doc-review.md"));
}

TEST_CASE("a symlinked report name pointing into the docs is refused", "[doc-review][review]") {
  TempDir dir("symlink");
  write_file(dir / "docs/page.md", "# Page\n");
  fs::create_directories(dir / "out");
  fs::create_symlink(dir / "docs/page.md", dir / "out/doc-review.md");
  CHECK(error_of({{"docs", (dir / "docs").string()}, {"output_dir", (dir / "out").string()}})
            .find("would leave 'output_dir'") != std::string::npos);
  CHECK(read_file(dir / "docs/page.md") == "# Page\n");
}

TEST_CASE("max_findings limits the list, not the counts, and axes filter the checks",
          "[doc-review][review]") {
  TempDir dir("limit");
  std::string page = "# Page\n\n";
  for (int k = 0; k < 12; ++k) page += "[x](missing" + std::to_string(k) + ".md)\n";
  write_file(dir / "docs/README.md", page);
  const json out = review({{"docs", (dir / "docs").string()}, {"max_findings", 5}});
  CHECK(out.at("findings").size() == 5);
  CHECK(out.at("summary").at("findings") == 12);
  CHECK(out.at("summary").at("truncated") == true);
  CHECK(out.at("counts").at("findable").at("error") == 12);
  const json only = review({{"docs", (dir / "docs").string()}, {"axes", {"读得懂"}}});
  CHECK(only.at("findings").empty());
  CHECK(only.at("axes") == json::array({"readable"}));
  CHECK(only.at("counts").size() == 1);
}

TEST_CASE("progress is reported per page and per axis, and cancellation stops the review",
          "[doc-review][review]") {
  TempDir dir("progress");
  write_file(dir / "docs/a.md", "# A\n");
  write_file(dir / "docs/b.md", "# B\n");
  std::vector<std::string> messages;
  ReviewHooks hooks;
  hooks.progress = [&](double done, double total, const std::string& m) {
    CHECK(done <= total);
    messages.push_back(m);
  };
  skillrt::doc_review::run_review({{"docs", (dir / "docs").string()}}, hooks);
  REQUIRE(messages.size() == 2 + 1 + 5);
  CHECK(messages.front() == "read a.md");
  CHECK(messages.back() == "readable checked");
  ReviewHooks stop;
  stop.cancelled = [] { return true; };
  CHECK_THROWS_AS(skillrt::doc_review::run_review({{"docs", (dir / "docs").string()}}, stop),
                  Cancelled);
}

TEST_CASE("e2e: the skill through skillrt, output checked against its schema",
          "[doc-review][review][e2e]") {
  TempDir dir("e2e");
  const std::string bin = std::string(SKILLRT_BINARY_DIR) + "/bin/skillrt";
  const json input = {{"docs", (data_dir() / "op-plugin/docs").string()},
                      {"code", (data_dir() / "op-plugin").string()},
                      {"output_dir", (dir / "out").string()}};
  write_file(dir / "in.json", input.dump());
  const std::string cmd = bin + " run doc-review -q --input '" + (dir / "in.json").string() +
                          "' --output '" + (dir / "out.json").string() + "' > '" +
                          (dir / "log").string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  INFO(read_file(dir / "log"));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  const json out = json::parse(read_file(dir / "out.json"));
  CHECK(out.at("code_kind") == "op-plugin");
  CHECK(out.at("summary").at("errors").get<int>() >= 4);
  CHECK(fs::exists(dir / "out/doc-review.html"));
  // A bad input is refused with the invalid-argument exit code and a message naming the field.
  write_file(dir / "bad.json", json{{"docs", (dir / "nope.md").string()}}.dump());
  const std::string bad = bin + " run doc-review -q --input '" + (dir / "bad.json").string() +
                          "' > '" + (dir / "bad.log").string() + "' 2>&1";
  const int bad_status = std::system(bad.c_str());
  REQUIRE(WIFEXITED(bad_status));
  CHECK(WEXITSTATUS(bad_status) == 3);
  CHECK(read_file(dir / "bad.log").find("'docs' path") != std::string::npos);
}
