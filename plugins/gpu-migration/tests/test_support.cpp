#include "test_support.hpp"

#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace gm_test {

fs::path fixture(const std::string& name) { return fs::path(GPU_MIGRATION_TEST_DATA) / name; }

TempRepo::TempRepo() {
  std::string tmpl = (fs::temp_directory_path() / "gpu-migration-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempRepo::TempRepo(const std::string& fixture_name) : TempRepo() {
  fs::copy(fixture(fixture_name), path_, fs::copy_options::recursive);
}

TempRepo::~TempRepo() {
  std::error_code ec;
  fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
  for (auto& e : fs::recursive_directory_iterator(path_, ec)) {
    fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
  fs::remove_all(path_, ec);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file())
      out[e.path().lexically_relative(root).generic_string()] = read_file(e.path());
  }
  return out;
}

namespace {

void markers(const std::string& file, int cell, const std::string& text, std::set<Expected>* out) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const size_t at = line.find("expect:");
    if (at == std::string::npos) continue;
    std::istringstream rules(line.substr(at + 7));
    std::string rule;
    while (rules >> rule) out->insert({file, cell, n, rule});
  }
}

}  // namespace

std::set<Expected> planted(const fs::path& root) {
  std::set<Expected> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_directory() && it->path().filename() == "third_party") {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file()) continue;
    const std::string rel = it->path().lexically_relative(root).generic_string();
    const std::string text = read_file(it->path());
    if (it->path().extension() == ".ipynb") {
      const nlohmann::json nb = nlohmann::json::parse(text);
      const auto& cells = nb.at("cells");
      for (size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].at("cell_type") != "code") continue;
        std::string src;
        const auto& s = cells[i].at("source");
        if (s.is_string()) {
          src = s.get<std::string>();
        } else {
          for (const auto& l : s) src += l.get<std::string>();
        }
        markers(rel, static_cast<int>(i), src, &out);
      }
      continue;
    }
    if (it->path().extension() == ".md") continue;
    markers(rel, -1, text, &out);
  }
  return out;
}

std::set<Expected> reported(const nlohmann::json& result) {
  std::set<Expected> out;
  for (const char* key : {"findings", "suggestions"}) {
    for (const auto& f : result.at(key)) {
      out.insert({f.at("file").get<std::string>(), f.value("cell", -1), f.at("line").get<int>(),
                  f.at("rule").get<std::string>()});
    }
  }
  return out;
}

int run(const std::string& command, std::string* out) {
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return -1;
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  const int status = pclose(p);
  if (out) *out = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string describe(const std::set<Expected>& s) {
  std::string out;
  for (const auto& [file, cell, line, rule] : s) {
    out += "  " + file + (cell >= 0 ? " cell " + std::to_string(cell) : "") + ":" +
           std::to_string(line) + " " + rule + "\n";
  }
  return out;
}

}  // namespace gm_test
