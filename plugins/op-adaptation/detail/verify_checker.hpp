// verify's checker: one object per call that loads what the checkout holds and runs every rule
// family over the selected ops. Its member functions are defined by family: verify.cpp (running,
// recording findings), verify_load.cpp, verify_yaml.cpp, verify_kernels.cpp, verify_meta.cpp,
// verify_public_api.cpp and verify_derivatives.cpp.
#ifndef SKILLRT_OP_ADAPTATION_DETAIL_VERIFY_CHECKER_HPP_
#define SKILLRT_OP_ADAPTATION_DETAIL_VERIFY_CHECKER_HPP_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cpp_scan.hpp"
#include "interface.hpp"
#include "optoolkit/default_value.hpp"
#include "optoolkit/sources.hpp"
#include "py_scan.hpp"
#include "tree.hpp"
#include "verify.hpp"

namespace skillrt::opa::detail {

using ops::FunctionSchema;
using ops::OpEntry;
using ops::OpSource;

struct LocatedFn {
  std::string file;
  const CppFunction* fn;
  const TypeAliases* aliases;  // the file's own
};

struct LocatedReg {
  std::string file;
  const PyRegistration* reg;
};

// One Meta registration against its schema: how the dispatcher's arguments reach the Python
// function's parameters.
struct MetaBinding {
  const FunctionSchema* schema = nullptr;
  const PyRegistration* reg = nullptr;
  std::string file;
  std::string op;
  std::string call;  // torch.ops.npu.<op>
  Location here;     // the def line
  Location schema_loc;
  std::vector<const PyParam*> positional;  // positional-or-keyword, in order
  std::vector<const PyParam*> kwonly;
  bool star_args = false;
  bool star_kwargs = false;
  std::vector<const ops::Argument*> s_pos;  // the schema's positional arguments
  std::vector<const ops::Argument*> s_kw;   // its keyword-only ones
  size_t always = 0;                        // positional values always passed
  std::set<const PyParam*> bound;           // parameters some argument reaches
};

std::string join_versions(const std::vector<std::string>& v);
// The members of `a` not in `b`, in a's order.
std::vector<std::string> minus(const std::vector<std::string>& a, const std::set<std::string>& b);

class Checker {
 public:
  Checker(const Tree& tree, const VerifyOptions& options, VerifyResult* result)
      : tree_(tree), options_(options), result_(result) {}

  void run();

 private:
  // ---- findings (verify.cpp) ----
  void add(Finding f);
  Finding make(const std::string& severity, const std::string& rule, const std::string& op,
               std::string message, std::string change, Location where, Location other = {});
  Location yaml_loc(const OpEntry& e, const std::string& key = "func") const;
  Location yaml_loc_for(const std::string& schema) const;
  std::vector<std::string> versions(const OpEntry& e, const std::string& key) const;
  std::vector<std::string> active_versions(const OpEntry& e) const;

  // ---- loading (verify_load.cpp) ----
  void load_yaml();
  void select_ops();
  void load_torch_npu();
  void load_derivatives();
  void load_sources();
  void load_kernels();
  void load_registrations();
  void load_baseline();
  void load_allowlist();
  void load_tests_and_docs();

  // ---- YAML entries (verify_yaml.cpp) ----
  void check_yaml_entry(const OpEntry& e);
  void check_entry_keys(const OpEntry& e);
  void check_backends(const OpEntry& e);
  void check_version_coverage(const OpEntry& e);
  void check_section(const OpEntry& e, const FunctionSchema& s);
  void check_gen_opapi(const OpEntry& e, const FunctionSchema& s);
  void check_gen_opapi_outputs(const OpEntry& e, const FunctionSchema& s,
                               const std::set<std::string>& spec_keys,
                               const std::vector<std::string>& out_names);
  void check_gen_opapi_exec(const OpEntry& e, const std::string& exec,
                            const std::set<std::string>& known);
  void check_duplicates_and_symint();

  // ---- C++ kernels (verify_kernels.cpp) ----
  void check_sources(const OpEntry& e);
  void check_generated_kernel(const OpEntry& e, const FunctionSchema& s);
  void check_kernel(const OpEntry& e, const Requirement& r);
  void check_kernel_definition(const OpEntry& e, const Requirement& r, const LocatedFn* match);
  void report_undefined(const OpEntry& e, const Requirement& r, const std::vector<LocatedFn>& cands,
                        const std::string& expected_file, const std::string& when);

  // ---- Meta registrations (verify_meta.cpp) ----
  void check_meta(const OpEntry& e, const FunctionSchema& s);
  void check_one_meta(const OpEntry& e, const FunctionSchema& s, const LocatedReg& lr);
  void report_meta(const MetaBinding& mb, const char* severity, const char* rule,
                   const std::string& message);
  void check_meta_positional(const MetaBinding& mb);
  void check_meta_positional_arg(const MetaBinding& mb, size_t i,
                                 const std::map<std::string, const ops::Argument*>& kw_by_name);
  void check_meta_keywords(MetaBinding& mb);
  void check_meta_keyword(MetaBinding& mb, const ops::Argument& arg, bool* split_reported);
  void check_meta_keyword_default(const MetaBinding& mb, const ops::Argument& arg,
                                  const PyParam& param);
  void check_meta_unreached(const MetaBinding& mb);
  void check_meta_returns(const MetaBinding& mb);
  void report_default_difference(const std::string& op, const ops::Argument& a, const PyParam& p,
                                 const PyRegistration& r, const std::string& file,
                                 const Location& here, const Location& schema_loc);
  void check_orphan_registrations();

  // ---- baseline, allowlist, tests, docs (verify_public_api.cpp) ----
  void check_baseline();
  void check_allowlist(const OpEntry& e, const FunctionSchema& s);
  void check_test(const OpEntry& e, const FunctionSchema& s);
  void check_doc(const OpEntry& e, const FunctionSchema& s);

  // ---- derivatives (verify_derivatives.cpp) ----
  void check_derivatives();
  void check_derivative(const OpEntry& d);
  const std::vector<const OpEntry*>* find_forward(const OpEntry& d);
  void check_derivative_key(const OpEntry& d, const std::string& key, const Json& value,
                            const std::set<std::string>& inputs, size_t nret);
  void check_formula(const OpEntry& d, const std::string& formula, const Location& kloc,
                     size_t nret);
  void check_derivative_versions(const OpEntry& d,
                                 const std::vector<const OpEntry*>& forward_entries);

  const Tree& tree_;
  const VerifyOptions& options_;
  VerifyResult* result_;
  std::string yaml_name_;
  OpSource yaml_;
  std::unique_ptr<OpSource> derivs_;
  std::unique_ptr<InterfaceModel> interface_;
  std::map<std::string, TypeAliases> aliases_;  // file -> its aliases
  std::map<std::string, std::vector<const OpEntry*>> by_name_;
  std::map<std::string, std::vector<const OpEntry*>> by_base_;
  std::map<std::string, std::vector<const OpEntry*>> by_schema_;
  std::vector<const OpEntry*> selected_;
  std::set<std::string> selected_names_;
  std::set<std::string> selected_bases_;
  std::set<std::string> have_kernel_dir_;
  std::vector<std::unique_ptr<std::vector<CppFunction>>> cpp_store_;
  std::map<std::string, std::vector<LocatedFn>> kernels_;
  std::vector<std::unique_ptr<std::vector<PyRegistration>>> py_store_;
  std::map<std::string, std::vector<LocatedReg>> registrations_;
  bool have_torch_npu_all_ = false;
  bool have_torch_npu_ops_ = false;
  std::set<std::string> torch_npu_all_;
  std::set<std::string> torch_npu_ops_;
  bool have_baseline_ = false;
  std::string baseline_text_;
  std::vector<std::pair<std::string, Json>> baseline_;  // "func: ..." key, its version list
  bool have_allowlist_ = false;
  std::string allowlist_text_;
  std::map<std::string, std::set<std::string>> allowlist_;
  bool have_tests_ = false;
  std::map<std::string, std::string> test_files_;
  bool have_docs_ = false;
  bool docs_usable_ = true;  // false once op-apidoc is found missing: said once, not per op
};

}  // namespace skillrt::opa::detail

#endif  // SKILLRT_OP_ADAPTATION_DETAIL_VERIFY_CHECKER_HPP_
