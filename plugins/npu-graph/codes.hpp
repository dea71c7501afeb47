// Error-code decoding: torch_npu ERR<ss><ccc>, ACL runtime numbers, aclnn return codes and CANN
// module codes, from the tables in data/error_codes.yaml and data/acl_error_codes.tsv.
#ifndef SKILLRT_NPU_GRAPH_CODES_HPP_
#define SKILLRT_NPU_GRAPH_CODES_HPP_

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace skillrt::npu_graph {

enum class CodeKind { kTorchNpu, kAcl, kAclnn, kCann };

const char* code_kind_name(CodeKind kind);

// A code as written in a line; `text` points into that line.
struct CodeToken {
  std::string_view text;
  CodeKind kind;
};

struct DecodedCode {
  std::string code;
  CodeKind kind = CodeKind::kAcl;
  std::string name;  // ERR: "OPS PARAM"; aclnn: constant name; CANN: component
  std::string meaning;
  std::string family;      // the family or range the code belongs to
  std::string layer;       // python-api | cpp-core | opplugin-operator | acl-runtime
  std::string suggestion;  // ACL table advice, when it has any

  nlohmann::json to_json() const;
};

class CodeTable {
 public:
  // Parses the two data files; throws std::runtime_error naming the file and entry on errors.
  CodeTable(std::string_view error_codes_yaml, std::string_view acl_tsv);

  // The table built from the embedded data files, parsed once.
  static const CodeTable& builtin();

  // Appends every code found in `line` to `out`. Six-digit numbers count only when a table
  // knows them, so that ids and sizes are not mistaken for codes.
  void scan(std::string_view line, std::vector<CodeToken>* out) const;

  std::optional<DecodedCode> decode(std::string_view code) const;

 private:
  struct ErrPart {
    std::string name;
    std::string meaning;
    std::string layer;
  };
  struct AclEntry {
    std::string meaning;
    std::string suggestion;
  };
  struct Range {
    long from;
    long to;
    std::string family;
  };
  bool is_known_number(long n) const;

  std::map<std::string, ErrPart> err_submodules_;
  std::map<std::string, ErrPart> err_codes_;
  std::unordered_map<long, AclEntry> acl_;
  std::unordered_map<long, AclEntry> aclnn_;  // suggestion holds the family
  std::unordered_map<long, std::string> aclnn_names_;
  std::vector<Range> acl_ranges_;
  std::map<char, ErrPart> cann_modules_;
};

}  // namespace skillrt::npu_graph

#endif  // SKILLRT_NPU_GRAPH_CODES_HPP_
