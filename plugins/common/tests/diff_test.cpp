#include <catch2/catch.hpp>

#include <map>

#include "optoolkit/diff.hpp"
#include "test_support.hpp"

using namespace skillrt::ops;
using optoolkit_test::read_text;
using optoolkit_test::source_path;

namespace {

// Replaces the single occurrence of `from`; a test edit that does not apply exactly once is a
// broken test, not a passing one.
void edit(std::string* text, const std::string& from, const std::string& to) {
  const size_t at = text->find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text->find(from, at + 1) == std::string::npos);
  text->replace(at, from.size(), to);
}

struct Found {
  std::string op;
  std::string what;
  std::string subject;
  std::string old_value;
  std::string new_value;
};

std::vector<Found> flatten(const SourceDiff& d) {
  std::vector<Found> out;
  for (const ChangedOp& c : d.changed) {
    for (const OpChange& ch : c.changes) {
      out.push_back(Found{c.new_op.op, ch.what, ch.subject, ch.old_value.value_or("<none>"),
                          ch.new_value.value_or("<none>")});
    }
  }
  return out;
}

bool has(const std::vector<Found>& all, const std::string& op, const std::string& what,
         const std::string& subject, const std::string& old_value, const std::string& new_value) {
  for (const Found& f : all) {
    if (f.op == op && f.what == what && f.subject == subject && f.old_value == old_value &&
        f.new_value == new_value) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("diff of native_functions.yaml against a derived version finds every change") {
  const std::string path = source_path("tests/data/pytorch-2.11/native_functions.yaml");
  const std::string original = read_text(path);
  std::string changed = original;
  // Removed op (its whole entry).
  const size_t abs_at = changed.find("- func: abs(Tensor self) -> Tensor\n");
  REQUIRE(abs_at != std::string::npos);
  changed.erase(abs_at, changed.find("\n\n", abs_at) + 2 - abs_at);
  // Added op.
  changed += "\n- func: my_new_op(Tensor self, int k=2) -> Tensor\n  variants: function\n";
  edit(&changed, "gelu(Tensor self, *, str approximate='none') -> Tensor\n",
       "gelu(Tensor self, *, str approximate='tanh') -> Tensor\n");
  edit(&changed, "chunk(Tensor(a -> *) self, int chunks,",
       "chunk(Tensor(a -> *) self, SymInt chunks,");
  edit(&changed, "set_data(Tensor(a!) self,", "set_data(Tensor(b!) self,");
  edit(&changed, "_cast_Byte(Tensor self, bool non_blocking=False)",
       "_cast_Byte(Tensor self, bool non_blocking=False, int extra=0)");
  edit(&changed, "_cast_Char(Tensor self, bool non_blocking=False)", "_cast_Char(Tensor self)");
  edit(&changed, "is_nonzero(Tensor self) -> bool", "is_nonzero(Tensor self) -> int");
  edit(&changed, "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values,",
       "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor vals,");
  edit(&changed, "_local_scalar_dense(Tensor self) -> Scalar\n",
       "_local_scalar_dense(Tensor self) -> (Scalar, Scalar)\n");
  edit(&changed, "_cast_Short(Tensor self, bool non_blocking=False)",
       "_cast_Short(Tensor self, *, bool non_blocking=False)");
  edit(&changed,
       "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
       "  device_check: NoCheck   # TensorIterator\n  structured_delegate: add.out\n"
       "  variants: function, method\n",
       "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
       "  device_check: NoCheck   # TensorIterator\n  structured_delegate: add.out\n"
       "  variants: function\n");
  edit(&changed, "- func: _cast_Half(Tensor self, bool non_blocking=False) -> Tensor\n",
       "- func: _cast_Half(Tensor self, bool non_blocking=False) -> Tensor\n  tags: core\n");
  edit(&changed, "- func: data(Tensor self) -> Tensor\n  manual_cpp_binding: True\n",
       "- func: data(Tensor self) -> Tensor\n");
  // Reordered arguments, and an out argument becoming a positional one is a kind change.
  edit(&changed, "- func: _cast_Int(Tensor self, bool non_blocking=False)",
       "- func: _cast_Int(bool non_blocking=False, Tensor self)");

  const OpSource a = load_source_text(original, "old/native_functions.yaml");
  const OpSource b = load_source_text(changed, "new/native_functions.yaml");
  REQUIRE(b.issues.empty());
  const SourceDiff d = diff_sources(a, b);

  REQUIRE(d.removed.size() == 1);
  CHECK(d.removed[0].op == "abs");
  CHECK(d.removed[0].where.line == 340);
  CHECK(d.removed[0].where.file == "old/native_functions.yaml");
  REQUIRE(d.added.size() == 1);
  CHECK(d.added[0].op == "my_new_op");
  CHECK(d.added[0].where.file == "new/native_functions.yaml");

  const auto all = flatten(d);
  CHECK(has(all, "gelu", "argument_default", "approximate", "'none'", "'tanh'"));
  CHECK(has(all, "chunk", "argument_type", "chunks", "int", "SymInt"));
  CHECK(has(all, "set_data", "argument_annotation", "self", "a!", "b!"));
  CHECK(has(all, "_cast_Byte", "argument_added", "extra", "<none>", "int extra=0"));
  CHECK(has(all, "_cast_Char", "argument_removed", "non_blocking", "bool non_blocking=False",
            "<none>"));
  CHECK(has(all, "is_nonzero", "return_type", "return 1", "bool", "int"));
  CHECK(has(all, "max.dim", "return_name", "return 1", "values", "vals"));
  CHECK(has(all, "_local_scalar_dense", "return_added", "return 2", "<none>", "Scalar"));
  CHECK(has(all, "_cast_Short", "argument_kwarg_only", "non_blocking", "positional", "kwarg_only"));
  CHECK(has(all, "add.Tensor", "key_changed", "variants", "\"function, method\"", "\"function\""));
  CHECK(has(all, "_cast_Half", "key_added", "tags", "<none>", "\"core\""));
  CHECK(has(all, "data", "key_removed", "manual_cpp_binding", "\"True\"", "<none>"));
  CHECK(has(all, "_cast_Int", "argument_moved", "non_blocking", "1", "0"));
  // Nothing else was reported.
  CHECK(d.changed.size() == 13);
  CHECK(d.unchanged == 2674 - 1 - 13);
  for (const ChangedOp& c : d.changed) {
    CHECK(c.old_op.where.file == "old/native_functions.yaml");
    CHECK(c.new_op.where.line > 0);
  }
}

TEST_CASE("diff of op_plugin_functions.yaml follows duplicates and version fields") {
  const std::string original =
      read_text(source_path("tests/data/op-plugin/op_plugin_functions.yaml"));
  std::string changed = original;
  edit(&changed,
       "    acl_op: [v2.7, newest]\n    op_api: [v2.7, newest]\n\n  - func: _embedding_bag(",
       "    acl_op: [v2.7, newest]\n    op_api: [v2.8, newest]\n\n  - func: _embedding_bag(");
  const OpSource a = load_source_text(original, "old.yaml");
  const OpSource b = load_source_text(changed, "new.yaml");
  const SourceDiff d = diff_sources(a, b);
  CHECK(d.added.empty());
  CHECK(d.removed.empty());
  REQUIRE(d.changed.size() == 1);
  CHECK(d.changed[0].new_op.op == "_conv_depthwise2d.out#2");
  CHECK(d.changed[0].new_op.section == "official");
  REQUIRE(d.changed[0].changes.size() == 1);
  CHECK(d.changed[0].changes[0].what == "key_changed");
  CHECK(d.changed[0].changes[0].subject == "op_api");
  CHECK(d.changed[0].changes[0].old_value == std::optional<std::string>("[\"v2.7\",\"newest\"]"));
}

TEST_CASE("identical files diff to nothing") {
  const OpSource a = load_source_file(source_path("tests/data/op-plugin/derivatives.yaml"));
  const SourceDiff d = diff_sources(a, a);
  CHECK(d.added.empty());
  CHECK(d.removed.empty());
  CHECK(d.changed.empty());
  CHECK(d.unchanged == 84);
}
