// The C++ interface op-plugin's code generator (torchnpugen, gen_op_backend.py) declares for the
// YAML at each PyTorch version: which functions OpInterface.cpp calls in op_api:: and acl_op::,
// with the names and parameter types a hand-written kernel must define exactly. Computed the way
// the generator computes it, so verify compares kernels with what the build links against.
#ifndef SKILLRT_OP_ADAPTATION_INTERFACE_HPP_
#define SKILLRT_OP_ADAPTATION_INTERFACE_HPP_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "optoolkit/schema.hpp"
#include "optoolkit/sources.hpp"

namespace skillrt::opa {

// How the generator spells one entry's types (torchnpugen/context.py, api/cpp.py).
struct GenFlags {
  bool symint = false;             // the op is in the symint section at this version
  bool ilistref = false;           // Tensor[] as ITensorListRef (structured ops)
  bool const_ref_mutable = false;  // use_const_ref_for_mutable_tensors
};

// One declaration of a generated interface header, types in canonical_cpp_type's spelling.
struct Declaration {
  std::string name;  // "add_out", "embedding_symint", "__ilshift__"
  std::string return_type;
  std::vector<std::string> param_types;
  std::vector<std::string> param_names;

  bool operator<(const Declaration& o) const;
  bool operator==(const Declaration& o) const;
  // "Tensor& add_out(const Tensor& self, ..., Tensor& out)"
  std::string to_string() const;
};

// What a kernel namespace must define for one YAML entry: the declaration (or, with impl_name, the
// function OpInterface.cpp calls instead) and the versions that need it.
struct Requirement {
  std::string ns;  // "op_api" | "acl_op"
  Declaration decl;
  std::string impl_name;  // set when the entry names another function to call
  std::vector<std::string> versions;
};

class InterfaceModel {
 public:
  explicit InterfaceModel(const ops::OpSource& yaml);

  // The generated declarations an entry of official/custom/quant needs defined by hand, grouped by
  // identical declaration. Empty for entries the generator declares no interface for (the
  // symint and autograd sections, structured_delegate ops other than cat) and for the op_api side
  // of gen_opapi entries (their kernel is generated too).
  std::vector<Requirement> requirements(const ops::OpEntry& entry) const;

  // Every declaration of OpApiInterface.h at `version` ("v2.11"), sorted; for tests against the
  // generator's own output.
  std::vector<Declaration> header(const std::string& version) const;

  // Whether the generator takes SymInt arguments of this entry's op as c10::SymInt at `version`.
  bool symint_at(const std::string& op_name, const std::string& version) const;
  GenFlags flags(const ops::OpEntry& e, const std::string& version) const;
  // Whether gen_op_plugin_functions.py keeps the entry at `version` (an op_api, acl_op or sparse
  // kernel there).
  bool active_at(const ops::OpEntry& e, const std::string& version) const;

 private:
  std::vector<std::string> versions_of(const ops::OpEntry& e, const char* key) const;

  const ops::OpSource& yaml_;
  std::map<std::string, std::set<std::string>> symint_versions_;  // op name -> versions
};

// The generator's C++ parameter type for a schema argument (canonical spelling).
std::string generated_cpp_type(const ops::Argument& arg, const GenFlags& flags);
std::string generated_cpp_return(const ops::FunctionSchema& schema, const GenFlags& flags);
// The generator's function name: the base name as written ("add_", "__ilshift__"), "_out" for out
// overloads, "_symint" when the op is in the symint section.
std::string generated_cpp_name(const ops::FunctionSchema& schema, bool symint);
Declaration generated_declaration(const ops::FunctionSchema& schema, const GenFlags& flags);

}  // namespace skillrt::opa

#endif  // SKILLRT_OP_ADAPTATION_INTERFACE_HPP_
