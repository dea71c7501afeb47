#include "diagnose_score.hpp"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "diagnose.hpp"
#include "embedded_data.hpp"

namespace skillrt::npu_graph::testing {

namespace fs = std::filesystem;

const std::vector<std::string>& diagnose_classes() {
  static const std::vector<std::string> kClasses = {"user-code", "framework-bug", "operator",
                                                    "acl-runtime", "env-config"};
  return kClasses;
}

DiagnoseScore score_diagnose_tree(const std::string& root, const std::string& title) {
  static const RuleSet rules = load_diagnose_rules({});
  const auto& classes = diagnose_classes();
  DiagnoseScore score;
  std::map<std::string, std::map<std::string, int>> confusion;
  std::ostringstream wrong;
  for (const std::string& cls : classes) {
    score.per_class[cls] = 0;
    std::vector<fs::path> files;
    // A set may have no log of a class (heldout3 has no operator log).
    if (!fs::is_directory(root + "/" + cls)) continue;
    for (const auto& e : fs::directory_iterator(root + "/" + cls)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      const nlohmann::json r = diagnose_text(read_text_file(f.string()), f.string(), rules);
      const std::string got = r["conclusion"].get<std::string>();
      ++confusion[cls][got];
      ++score.per_class[cls];
      ++score.total;
      if (got == "undetermined") ++score.undetermined;
      if (got == cls) {
        ++score.right;
        continue;
      }
      wrong << "  " << cls << "/" << f.filename().string() << ": got " << got << " (rule "
            << (r["rule"].is_null() ? "none" : r["rule"]["id"].get<std::string>()) << ")\n";
    }
  }
  std::ostringstream table;
  table << title << ": " << score.right << "/" << score.total << " correct (" << std::fixed
        << std::setprecision(1) << 100.0 * score.right / std::max(score.total, 1)
        << "%), undetermined " << score.undetermined << "\n"
        << "confusion (rows = label, columns = conclusion):\n"
        << std::setw(14) << "";
  std::vector<std::string> cols = classes;
  cols.push_back("undetermined");
  for (const auto& c : cols) table << std::setw(14) << c;
  table << "\n";
  for (const auto& row : classes) {
    table << std::setw(14) << row;
    for (const auto& c : cols) table << std::setw(14) << confusion[row][c];
    table << "\n";
  }
  score.report = table.str() + wrong.str();
  return score;
}

}  // namespace skillrt::npu_graph::testing
