#include "generate.hpp"

#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "optoolkit/op_request.hpp"
#include "optoolkit/schema.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::op_test {

namespace {

using ops::Argument;
using ops::FunctionSchema;
using ops::ResolvedOp;
using ops::SchemaKind;

// Tolerances per dtype for assertRtolEqual. float16/float32 are the harness defaults
// (prec16=1e-3, prec=1e-4); bfloat16 has 8 mantissa bits, so it is compared in float32 at
// msprobe's bf16 rtol (4e-3) instead of the harness's bf16 path (allclose at prec16).
struct Tolerance {
  const char* dtype;
  double prec;
  const char* evidence;
};
constexpr Tolerance kTolerances[] = {
    {"float16", 1e-3, "assertRtolEqual prec16 default (op-adaptation.md §8)"},
    {"float32", 1e-4, "assertRtolEqual prec default (op-adaptation.md §8)"},
    {"float64", 1e-4, "assertRtolEqual prec default (op-adaptation.md §8)"},
    {"bfloat16", 4e-3, "msprobe per-API bf16 rtol 4e-3 (accuracy.md §4), compared in float32"},
};
const std::set<std::string> kDtypes = {"float16", "float32", "float64", "bfloat16", "int8",
                                       "uint8",   "int16",   "int32",   "int64",    "bool"};

bool is_tensor(const Argument& a) { return a.type.base == "Tensor"; }
bool is_plain_tensor(const Argument& a) { return a.type.is_plain("Tensor"); }
bool is_tensor_list(const Argument& a) { return a.type.base == "Tensor" && a.type.suffix == "[]"; }

const char* kPyKeywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

std::string py_name(const std::string& name) {
  for (const char* k : kPyKeywords)
    if (name == k) return name + "_";
  return name;
}

std::string py_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string py_literal(const Json& v) {
  if (v.is_null()) return "None";
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_string()) return py_string(v.get<std::string>());
  if (v.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + py_literal(v[i]);
    return out + "]";
  }
  if (v.is_object()) {
    std::string out = "{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      out += (first ? "" : ", ") + py_string(it.key()) + ": " + py_literal(it.value());
      first = false;
    }
    return out + "}";
  }
  return v.dump();
}

// A schema default as Python, or empty when it has no obvious Python spelling.
std::string py_default(const std::string& d) {
  if (d == "True" || d == "False" || d == "None") return d;
  if (d == "[]") return "[]";
  if (d == "inf") return "float('inf')";
  if (d == "-inf") return "float('-inf')";
  if (d == "contiguous_format") return "torch.contiguous_format";
  if (d == "long") return "torch.long";
  if (d == "Mean") return "1";
  if (d == "Sum") return "2";
  if (!d.empty() && (d.front() == '\'' || d.front() == '"')) return d;
  if (!d.empty() && d.front() == '[') return d;
  bool numeric = !d.empty();
  for (char c : d)
    numeric = numeric && (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' ||
                          c == 'e' || c == '+');
  return numeric ? d : "";
}

// A value for a non-tensor argument with neither a default nor a hint; the output lists it as
// an assumption for the engineer to confirm.
std::string guess_value(const Argument& a) {
  const std::string& b = a.type.base;
  const bool dim_like = a.name.find("dim") != std::string::npos;
  if (a.type.is_optional()) return "None";
  if (a.type.is_list()) {
    if (b == "int" || b == "SymInt") return dim_like ? "[-1]" : "[1]";
    if (b == "float") return "[1.0]";
    return "[]";
  }
  if (b == "int" || b == "SymInt") return dim_like ? "-1" : "1";
  if (b == "float") return "0.5";
  if (b == "bool") return "False";
  if (b == "Scalar") return "2";
  if (b == "str") return "\"none\"";
  if (b == "ScalarType") return "torch.float32";
  return "None";
}

std::string shape_name(const Json& shape) {
  if (shape.empty()) return "scalar";
  std::string out;
  for (const auto& d : shape) out += (out.empty() ? "" : "x") + std::to_string(d.get<long>());
  return out;
}

std::string ident(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

std::string op_ref(const FunctionSchema& s, const std::string& ns) {
  std::string base = s.name.full_base();
  const size_t colon = base.find("::");
  if (colon != std::string::npos) base = base.substr(colon + 2);
  const std::string packet = "torch.ops." + ns + "." + base;
  const std::string overload = s.name.overload.empty() ? "default" : s.name.overload;
  // Overloads such as random_.from are Python keywords: reachable through getattr only.
  if (py_name(overload) != overload) return "getattr(" + packet + ", " + py_string(overload) + ")";
  return packet + "." + overload;
}

std::string variant_label(const ResolvedOp& op) {
  switch (op.schema.kind) {
    case SchemaKind::kInplace:
      return "inplace";
    case SchemaKind::kOut:
      return "out";
    default:
      return "functional";
  }
}

struct Case {
  std::string name;
  std::string kind;
  std::string detail;
};

// The Python helpers every generated file carries: inputs, reference, comparison, call.
constexpr const char* kHelpers = R"PY(

def _dev(t):
    if t is None or not isinstance(t, torch.Tensor):
        return t
    return t.to(DEVICE)


def _make(dtype, shape, lo, hi, noncontiguous=False):
    """A CPU tensor and its device copy, drawn the way create_common_tensor draws them."""
    np_dtype = NP_DTYPES["float32" if dtype == "bfloat16" else dtype]
    shape = list(shape)
    if noncontiguous and len(shape) >= 2:
        shape[-1], shape[-2] = shape[-2], shape[-1]
    if len(shape) == 0:
        # create_common_tensor goes through torch.from_numpy, which needs an array.
        cpu = torch.tensor(np.array(np.random.uniform(lo, hi)).astype(np_dtype))
        dev = _dev(cpu)
    else:
        cpu, dev = create_common_tensor([np_dtype, 2, shape], lo, hi)
        if DEVICE_TYPE != "npu":
            dev = _dev(cpu)
    if dtype == "bfloat16":
        cpu = cpu.to(torch.bfloat16)
        dev = _dev(cpu)
    if noncontiguous and len(shape) >= 2:
        cpu = cpu.transpose(-1, -2)
        dev = dev.transpose(-1, -2)
    return cpu, dev


def _upcast(v):
    if isinstance(v, (list, tuple)):
        return [_upcast(x) for x in v]
    if isinstance(v, torch.Tensor) and v.dtype in (torch.float16, torch.bfloat16):
        return v.float()
    if isinstance(v, torch.Tensor):
        return v.clone()
    return v


def _cast_back(v, dtype):
    if isinstance(v, (list, tuple)):
        return [_cast_back(x, dtype) for x in v]
    if isinstance(v, torch.Tensor) and dtype in ("float16", "bfloat16") and v.dtype == torch.float32:
        return v.to(getattr(torch, dtype))
    return v


def _call(fn, args):
    pos = [args[n] for n in POSITIONAL if n in args]
    kw = {n: v for n, v in args.items() if n not in POSITIONAL}
    return fn(*pos, **kw)


def _inputs(dtype, shapes, noncontiguous=False):
    """Arguments for one case, on CPU and on the device, by schema name."""
    cpu_args, dev_args = {}, {}
    for name in TENSOR_ARGS:
        if name in FIXED_TENSORS:
            fdtype, fshape, (lo, hi) = FIXED_TENSORS[name]
            cpu, dev = _make(fdtype, fshape, lo, hi)
        elif name in TENSOR_LIST_ARGS:
            pairs = [_make(dtype, shapes[name], VALUE_RANGE[0], VALUE_RANGE[1], noncontiguous)
                     for _ in range(LIST_LEN)]
            cpu, dev = [p[0] for p in pairs], [p[1] for p in pairs]
        else:
            cpu, dev = _make(dtype, shapes[name], VALUE_RANGE[0], VALUE_RANGE[1], noncontiguous)
        cpu_args[name], dev_args[name] = cpu, dev
    for name, value in SCALARS.items():
        cpu_args[name] = value
        dev_args[name] = value
    return cpu_args, dev_args


def _reference(cpu_args, dtype, variant):
    args = {n: _upcast(v) for n, v in cpu_args.items()}
    if HAS_REFERENCE:
        return _cast_back(cpu_reference(**{PY_NAMES[n]: v for n, v in args.items()}), dtype)
    if variant["kind"] == "out":
        for name in variant["outs"]:
            args[name] = torch.empty(0)
    out = _call(variant["op"], args)
    if variant["kind"] == "inplace":
        out = args[INPLACE_ARG]
    return _cast_back(out, dtype)


def _to_cpu(v):
    if isinstance(v, (list, tuple)):
        return [_to_cpu(x) for x in v]
    return v.cpu() if isinstance(v, torch.Tensor) else v


def _outputs(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


class OpTestBase(TestCase):
    def compare(self, actual, expected, dtype):
        if isinstance(expected, (list, tuple)):
            self.assertEqual(len(_outputs(actual)), len(expected))
            for a, e in zip(_outputs(actual), expected):
                self.compare(a, e, dtype)
            return
        if not isinstance(expected, torch.Tensor):
            self.assertEqual(actual, expected)
            return
        actual = actual.cpu()
        self.assertEqual(actual.shape, expected.shape)
        self.assertEqual(actual.dtype, expected.dtype)
        if actual.dtype == torch.bfloat16:
            self.assertRtolEqual(actual.float(), expected.float(), prec=PRECISION["bfloat16"])
        elif actual.dtype == torch.float16:
            self.assertRtolEqual(actual.numpy(), expected.numpy(), prec16=PRECISION["float16"])
        elif actual.dtype.is_floating_point:
            self.assertRtolEqual(actual.numpy(), expected.numpy(),
                                 prec=PRECISION.get(str(actual.dtype)[6:], 1e-4))
        else:
            self.assertRtolEqual(actual.numpy(), expected.numpy())

    def check(self, variant, dtype, shapes, noncontiguous=False):
        cpu_args, dev_args = _inputs(dtype, shapes, noncontiguous)
        expected = _reference(cpu_args, dtype, variant)
        if variant["kind"] == "out":
            outs = [torch.empty(0, dtype=e.dtype, device=DEVICE) for e in _outputs(expected)]
            for name, t in zip(variant["outs"], outs):
                dev_args[name] = t
            returned = _call(variant["op"], dev_args)
            for r, t in zip(_outputs(returned), outs):
                self.assertEqual(r.data_ptr(), t.data_ptr(), "out variant must return its out tensor")
            actual = outs[0] if len(outs) == 1 else outs
        elif variant["kind"] == "inplace":
            target = dev_args[INPLACE_ARG]
            # An in-place op writes its result into self's dtype.
            expected = expected.to(target.dtype) if isinstance(expected, torch.Tensor) else expected
            returned = _call(variant["op"], dev_args)
            self.assertEqual(returned.data_ptr(), target.data_ptr(), "in-place variant must return self")
            actual = target
        else:
            actual = _call(variant["op"], dev_args)
        self.compare(actual, expected, dtype)

    def check_raises(self, variant, overrides, error, pattern):
        _, dev_args = _inputs(DTYPES[0], CASES[0])
        for name, value in overrides.items():
            if isinstance(value, dict) and "shape" in value:
                lo, hi = value.get("range", VALUE_RANGE)
                value = _make(value.get("dtype", DTYPES[0]), value["shape"], lo, hi)[1]
            dev_args[name] = value
        if variant["kind"] == "out":
            for name in variant["outs"]:
                dev_args.setdefault(name, torch.empty(0, device=DEVICE))
        with self.assertRaisesRegex(error, pattern):
            _call(variant["op"], dev_args)

    def check_fake(self, variant):
        try:
            from torch._subclasses.fake_tensor import FakeTensorMode
        except ImportError:
            raise unittest.SkipTest("FakeTensorMode is missing from torch " + torch.__version__)
        _, dev_args = _inputs(DTYPES[0], CASES[0])
        real = _call(variant["op"], dev_args)
        mode = FakeTensorMode()
        fake_args = {}
        for name, value in dev_args.items():
            if isinstance(value, torch.Tensor):
                value = mode.from_tensor(value)
            elif isinstance(value, list) and value and isinstance(value[0], torch.Tensor):
                value = [mode.from_tensor(t) for t in value]
            fake_args[name] = value
        with mode:
            fake = _call(variant["op"], fake_args)
        for r, f in zip(_outputs(real), _outputs(fake)):
            if isinstance(r, torch.Tensor):
                self.assertEqual(f.shape, r.shape)
                self.assertEqual(f.dtype, r.dtype)
                self.assertEqual(f.device, r.device)

    def check_compile(self, variant):
        if not hasattr(torch, "compile"):
            raise unittest.SkipTest("torch.compile needs torch >= 2.0; this is torch " + torch.__version__)
        from torch import _dynamo
        _dynamo.reset()
        _, dev_args = _inputs(DTYPES[0], CASES[0])
        names = [n for n, v in dev_args.items() if isinstance(v, torch.Tensor)]
        rest = {n: v for n, v in dev_args.items() if n not in names}

        def fn(*tensors):
            args = dict(rest)
            args.update(zip(names, tensors))
            return _call(variant["op"], args)

        backend = COMPILE_BACKEND
        if backend == "npu":
            import torchair
            from torchair.configs.compiler_config import CompilerConfig
            backend = torchair.get_npu_backend(compiler_config=CompilerConfig())
        # fullgraph=True turns any graph break into an error.
        compiled = torch.compile(fn, backend=backend, fullgraph=True)
        tensors = [dev_args[n] for n in names]
        self.compare(compiled(*tensors), _to_cpu(fn(*tensors)), DTYPES[0])
)PY";

struct Plan {
  std::vector<std::string> positional, kwarg_only, tensor_args, list_args;
  Json scalars = Json::object();
  std::vector<std::string> scalar_lines;  // "name": value  # why
  Json assumptions = Json::array();
  std::string inplace_arg = "self";
};

}  // namespace

Json run_generate(const Json& input, Context* context) {
  const bool want_variants = input.value("variants", true);
  std::vector<ResolvedOp> ops = ops::resolve_ops(input, want_variants);
  const ResolvedOp& primary = ops.front();
  const FunctionSchema& schema = primary.schema;
  if (context) context->progress(1, 4, "schema resolved");

  const std::string device = input.value("device", std::string("npu"));
  std::string ns = input.value("namespace", std::string());
  if (ns.empty()) {
    ns = schema.name.ns;
    if (ns.empty())
      ns = (primary.section == "custom" || schema.name.base.rfind("npu_", 0) == 0) ? "npu" : "aten";
  }

  // Arguments: positional and kwarg-only split as the schema writes them; out args apart.
  Plan plan;
  const Json hint_args = input.value("args", Json::object());
  const Json fixed = input.value("tensor_args", Json::object());
  for (const Argument& a : schema.arguments) {
    if (a.out) continue;
    (a.kwarg_only ? plan.kwarg_only : plan.positional).push_back(a.name);
    if (a.is_write() && schema.kind == SchemaKind::kInplace) plan.inplace_arg = a.name;
    if (is_plain_tensor(a) || is_tensor_list(a) || (is_tensor(a) && fixed.contains(a.name))) {
      plan.tensor_args.push_back(a.name);
      if (is_tensor_list(a)) plan.list_args.push_back(a.name);
      continue;
    }
    std::string value, why;
    if (hint_args.contains(a.name)) {
      value = py_literal(hint_args.at(a.name));
      why = "hint";
    } else if (a.default_value) {
      value = py_default(*a.default_value);
      if (value.empty()) continue;  // left to the op's own default
      why = "schema default " + *a.default_value;
    } else {
      value = guess_value(a);
      why = "guessed for type " + ops::print_type(a.type) + ": confirm";
      plan.assumptions.push_back(
          {{"argument", a.name}, {"value", value}, {"reason", "no default and no hint in 'args'"}});
    }
    plan.scalar_lines.push_back(py_string(a.name) + ": " + value + ",  # " + why);
  }
  if (plan.tensor_args.empty()) {
    throw invalid_argument("op '" + schema.name.qualified() +
                           "' takes no Tensor argument; op-test generates tests for tensor ops "
                           "only (factory functions need hand-written cases)");
  }

  // dtypes, shapes, ranges.
  std::vector<std::string> dtypes;
  for (const auto& d : input.value("dtypes", Json::array())) dtypes.push_back(d.get<std::string>());
  if (dtypes.empty()) dtypes = {"float16", "float32", "bfloat16"};
  for (const auto& d : dtypes)
    if (!kDtypes.count(d))
      throw invalid_argument(
          "field 'dtypes': unknown dtype '" + d +
          "'; use float16, float32, float64, bfloat16, int8..int64, uint8, bool");
  Json range = input.value("range", Json::array({-10.0, 10.0}));

  const std::vector<std::string> free_tensors = [&] {
    std::vector<std::string> v;
    for (const auto& n : plan.tensor_args)
      if (!fixed.contains(n)) v.push_back(n);
    return v;
  }();
  auto all_same = [&](const Json& shape) {
    Json m = Json::object();
    for (const auto& n : free_tensors) m[n] = shape;
    return m;
  };
  struct ShapeCase {
    std::string name;
    Json shapes;
    bool noncontiguous = false;
  };
  std::vector<ShapeCase> cases;
  Json hinted_shapes = input.value("shapes", Json::array());
  if (hinted_shapes.empty())
    hinted_shapes = Json::array({Json::array({2, 3}), Json::array({4, 5, 6})});
  for (const auto& s : hinted_shapes) {
    if (s.is_object())
      cases.push_back({"case" + std::to_string(cases.size()), s, false});
    else
      cases.push_back({shape_name(s), all_same(s), false});
  }
  Json kinds = input.value("shape_kinds", Json::array({"empty", "scalar", "noncontiguous"}));
  Json not_generated = Json::array();
  auto wants = [&](const char* k) {
    for (const auto& x : kinds)
      if (x == k) return true;
    return false;
  };
  if (wants("empty")) cases.push_back({"empty", all_same(Json::array({0, 3})), false});
  if (wants("scalar")) cases.push_back({"scalar", all_same(Json::array()), false});
  if (wants("noncontiguous"))
    cases.push_back({"noncontiguous", all_same(Json::array({3, 5})), true});
  if (wants("broadcast")) {
    if (free_tensors.size() >= 2) {
      Json m = all_same(Json::array({5, 3}));
      m[free_tensors.front()] = Json::array({4, 1, 3});
      cases.push_back({"broadcast", m, false});
    } else {
      not_generated.push_back({{"category", "broadcast"},
                               {"reason", "the op has fewer than two free tensor arguments"}});
    }
  } else {
    not_generated.push_back(
        {{"category", "broadcast"},
         {"reason",
          "the schema does not say whether the op broadcasts: add \"broadcast\" to "
          "'shape_kinds' if it does"}});
  }
  if (context) context->progress(2, 4, "cases planned");

  // The file.
  const std::string op_id = ident(schema.name.qualified());
  std::ostringstream py;
  py << "# Generated by skillrt op-test (generate); review before committing.\n";
  for (const auto& op : ops) {
    py << "# " << variant_label(op) << ": " << op.text;
    if (!op.file.empty()) py << "  (" << op.file << ":" << op.line << ")";
    py << "\n";
  }
  py << "# Device under test: env OP_TEST_DEVICE (default \"" << device
     << "\"), compared with a CPU reference.\n";
  py << "import os\nimport unittest\n\nimport numpy as np\nimport torch\nimport torch_npu  # noqa: "
        "F401\nfrom torch_npu.testing.testcase import TestCase, run_tests\n"
        "from torch_npu.testing.common_utils import create_common_tensor, SupportedDevices\n\n";
  py << "DEVICE = os.environ.get(\"OP_TEST_DEVICE\", " << py_string(device) << ")\n";
  py << "DEVICE_TYPE = DEVICE.split(\":\")[0]\n";
  py << "COMPILE_BACKEND = os.environ.get(\"OP_TEST_COMPILE_BACKEND\", \"npu\" if DEVICE_TYPE == "
        "\"npu\" else \"eager\")\n";
  py << "NP_DTYPES = {\"float16\": np.float16, \"float32\": np.float32, \"float64\": np.float64,\n"
        "             \"int8\": np.int8, \"uint8\": np.uint8, \"int16\": np.int16, \"int32\": "
        "np.int32,\n             \"int64\": np.int64, \"bool\": np.bool_}\n";
  py << "# Tolerance per dtype:\n";
  py << "PRECISION = {\n";
  for (const auto& t : kTolerances)
    py << "    " << py_string(t.dtype) << ": " << t.prec << ",  # " << t.evidence << "\n";
  py << "}\n";
  py << "DTYPES = [";
  for (size_t i = 0; i < dtypes.size(); ++i) py << (i ? ", " : "") << py_string(dtypes[i]);
  py << "]\n";
  py << "VALUE_RANGE = (" << range.at(0).dump() << ", " << range.at(1).dump() << ")\n";
  auto list = [&](const char* name, const std::vector<std::string>& v) {
    py << name << " = [";
    for (size_t i = 0; i < v.size(); ++i) py << (i ? ", " : "") << py_string(v[i]);
    py << "]\n";
  };
  list("POSITIONAL", plan.positional);
  list("KWARG_ONLY", plan.kwarg_only);
  list("TENSOR_ARGS", plan.tensor_args);
  list("TENSOR_LIST_ARGS", plan.list_args);
  py << "LIST_LEN = " << input.value("list_len", 2) << "\n";
  py << "INPLACE_ARG = " << py_string(plan.inplace_arg) << "\n";
  py << "FIXED_TENSORS = {\n";
  for (auto it = fixed.begin(); it != fixed.end(); ++it) {
    const Json& f = it.value();
    const Json r = f.value("range", range);
    py << "    " << py_string(it.key()) << ": ("
       << py_string(f.value("dtype", std::string("int64"))) << ", "
       << py_literal(f.value("shape", Json::array({2}))) << ", (" << r.at(0).dump() << ", "
       << r.at(1).dump() << ")),\n";
  }
  py << "}\nSCALARS = {\n";
  for (const auto& l : plan.scalar_lines) py << "    " << l << "\n";
  py << "}\nCASES = [\n";
  for (const auto& c : cases) py << "    " << py_literal(c.shapes) << ",  # " << c.name << "\n";
  py << "]\n";
  py << "PY_NAMES = {";
  {
    bool first = true;
    for (const Argument& a : schema.arguments) {
      if (a.out) continue;
      py << (first ? "" : ", ") << py_string(a.name) << ": " << py_string(py_name(a.name));
      first = false;
    }
  }
  py << "}\n";
  const std::string reference = input.value("reference", std::string());
  py << "HAS_REFERENCE = " << (reference.empty() ? "False" : "True") << "\n\n\n";
  py << "def cpu_reference(**args):\n";
  if (reference.empty()) {
    py << "    # No reference expression was given: the reference is the same overload run on "
          "CPU\n    # in float32 (see _reference).\n    raise NotImplementedError\n";
  } else {
    for (const Argument& a : schema.arguments)
      if (!a.out)
        py << "    " << py_name(a.name) << " = args.get(" << py_string(py_name(a.name)) << ")\n";
    py << "    return " << reference << "\n";
  }
  py << "\n\nVARIANTS = {\n";
  for (const auto& op : ops) {
    py << "    " << py_string(variant_label(op)) << ": {\"op\": " << op_ref(op.schema, ns)
       << ", \"kind\": " << py_string(variant_label(op)) << ", \"outs\": [";
    bool first = true;
    for (const Argument& a : op.schema.arguments)
      if (a.out) {
        py << (first ? "" : ", ") << py_string(a.name);
        first = false;
      }
    py << "]},\n";
  }
  py << "}\n";
  py << kHelpers;

  // Test methods.
  Json case_list = Json::array();
  const Json chips = input.value("chips", Json::array());
  std::string decorator;
  if (!chips.empty()) decorator = "    @CHIPS\n";
  py << "\n\nCHIPS = (SupportedDevices(" << py_literal(chips)
     << ") if DEVICE_TYPE == \"npu\" else (lambda f: f))\n";
  py << "\n\nclass Test" << ident(schema.name.base) << "(OpTestBase):\n";
  for (const auto& op : ops) {
    const std::string v = variant_label(op);
    for (const auto& d : dtypes) {
      for (size_t i = 0; i < cases.size(); ++i) {
        // self keeps its shape in place, so it cannot be the broadcast operand.
        if (v == "inplace" && cases[i].name == "broadcast") continue;
        const std::string name =
            "test_" + ident(schema.name.base) + "_" + v + "_" + d + "_" + ident(cases[i].name);
        py << decorator << "    def " << name << "(self):\n        self.check(VARIANTS["
           << py_string(v) << "], " << py_string(d) << ", CASES[" << i << "]"
           << (cases[i].noncontiguous ? ", noncontiguous=True" : "") << ")\n\n";
        case_list.push_back({{"name", name},
                             {"kind", "positive"},
                             {"variant", v},
                             {"dtype", d},
                             {"shape", cases[i].name}});
      }
    }
  }
  // Negative cases.
  const std::string first_tensor =
      free_tensors.empty() ? plan.tensor_args.front() : free_tensors.front();
  py << decorator << "    def test_" << op_id << "_rejects_non_tensor(self):\n"
     << "        self.check_raises(VARIANTS[\"" << variant_label(primary) << "\"], {"
     << py_string(first_tensor) << ": [1.0, 2.0]}, (RuntimeError, TypeError), \"Tensor\")\n\n";
  case_list.push_back({{"name", "test_" + op_id + "_rejects_non_tensor"},
                       {"kind", "negative"},
                       {"category", "wrong type"}});
  bool out_of_range = false;
  for (const Argument& a : schema.arguments) {
    if (a.out || is_tensor(a) || a.type.is_list() || hint_args.contains(a.name)) continue;
    if ((a.type.base == "int" || a.type.base == "SymInt") &&
        a.name.find("dim") != std::string::npos) {
      py << decorator << "    def test_" << op_id << "_" << ident(a.name)
         << "_out_of_range(self):\n"
         << "        self.check_raises(VARIANTS[\"" << variant_label(primary) << "\"], {"
         << py_string(a.name)
         << ": 64}, (IndexError, RuntimeError), \"[Dd]imension out of range|out of "
            "range|invalid\")\n\n";
      case_list.push_back({{"name", "test_" + op_id + "_" + ident(a.name) + "_out_of_range"},
                           {"kind", "negative"},
                           {"category", "out-of-range value"}});
      out_of_range = true;
    }
  }
  std::set<std::string> hinted_kinds;
  for (const auto& e : input.value("error_cases", Json::array())) {
    const std::string name =
        "test_" + op_id + "_error_" + ident(e.value("name", std::to_string(case_list.size())));
    const std::string err = e.value("error", std::string("RuntimeError"));
    py << decorator << "    def " << name << "(self):\n"
       << "        self.check_raises(VARIANTS[\"" << variant_label(primary) << "\"], "
       << py_literal(e.value("args", Json::object())) << ", " << err << ", "
       << py_string(e.value("match", std::string(""))) << ")\n\n";
    hinted_kinds.insert(e.value("kind", std::string("other")));
    case_list.push_back({{"name", name},
                         {"kind", "negative"},
                         {"category", e.value("kind", std::string("other"))}});
  }
  for (const char* k : {"wrong dtype", "wrong rank", "mismatched shapes", "out-of-range value"}) {
    if (hinted_kinds.count(k) || (std::string(k) == "out-of-range value" && out_of_range)) continue;
    not_generated.push_back({{"category", k},
                             {"reason",
                              "the schema does not say which inputs the op rejects: add "
                              "an entry with \"kind\": \"" +
                                  std::string(k) + "\" to 'error_cases'"}});
  }
  // FakeTensor and compile cases.
  py << decorator << "    def test_" << op_id
     << "_fake_tensor(self):\n        self.check_fake(VARIANTS[\"" << variant_label(primary)
     << "\"])\n\n";
  py << decorator << "    def test_" << op_id
     << "_compile_fullgraph(self):\n        self.check_compile(VARIANTS[\""
     << variant_label(primary) << "\"])\n\n";
  case_list.push_back({{"name", "test_" + op_id + "_fake_tensor"}, {"kind", "fake-tensor"}});
  case_list.push_back({{"name", "test_" + op_id + "_compile_fullgraph"}, {"kind", "compile"}});
  py << "\nif __name__ == \"__main__\":\n    run_tests()\n";
  if (context) context->progress(3, 4, "file written");

  const std::string dir = ns == "npu" ? "test/test_custom_ops/test_" : "test/test_base_ops/test_";
  const std::string path = input.value("path", dir + ident(schema.name.base) + ".py");
  const std::string content = py.str();

  Json variants = Json::array();
  for (const auto& op : ops) {
    Json v = {{"schema", op.text}, {"kind", variant_label(op)}, {"call", op_ref(op.schema, ns)}};
    if (!op.file.empty()) v["source"] = {{"file", op.file}, {"line", op.line}};
    variants.push_back(v);
  }
  Json tolerances = Json::array();
  for (const auto& t : kTolerances)
    tolerances.push_back({{"dtype", t.dtype}, {"prec", t.prec}, {"evidence", t.evidence}});
  if (reference.empty()) {
    plan.assumptions.push_back(
        {{"argument", "reference"},
         {"value", "the same overload on CPU in float32"},
         {"reason", ns == "npu" ? "no 'reference' given and an npu:: op has no CPU kernel: the "
                                  "positive cases fail until you supply one"
                                : "no 'reference' given"}});
  }
  Json out = {{"mode", "generate"},
              {"op", schema.name.qualified()},
              {"device", device},
              {"test_file", {{"path", path}, {"content", content}}},
              {"cases", case_list},
              {"variants", variants},
              {"tolerances", tolerances},
              {"assumptions", plan.assumptions},
              {"not_generated", not_generated},
              {"applied", false}};
  if (input.value("apply", false)) {
    if (!input.contains("root"))
      throw invalid_argument("'apply' needs 'root', the repository the test file is written into");
    const std::string root = input.at("root").get<std::string>();
    const auto target = plugin_io::path_under(root, path);
    if (!target) throw invalid_argument("field 'path' (" + path + ") leaves 'root' " + root);
    std::filesystem::create_directories(target->parent_path());
    try {
      plugin_io::write_file_atomic(*target, content);
    } catch (const std::runtime_error& e) {
      throw SkillError(SKILLRT_FAILED_PRECONDITION, e.what());
    }
    out["applied"] = true;
    out["written"] = target->string();
  }
  if (context) context->progress(4, 4, "done");
  return out;
}

}  // namespace skillrt::op_test
