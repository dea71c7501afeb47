// Scores npu-graph-diagnose on a labelled tree <root>/<class>/*.log; shared by the dev-set and
// held-out tests so both are measured, and printed, the same way.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace skillrt::npu_graph::testing {

struct DiagnoseScore {
  int total = 0;
  int right = 0;
  int undetermined = 0;
  std::map<std::string, int> per_class;
  std::string report;  // accuracy line, confusion matrix, then each miss with its rule
};

// The five conclusion classes of the labelled sets.
const std::vector<std::string>& diagnose_classes();

DiagnoseScore score_diagnose_tree(const std::string& root, const std::string& title);

}  // namespace skillrt::npu_graph::testing
