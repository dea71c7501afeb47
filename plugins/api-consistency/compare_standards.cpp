// The compare engine's results: the thresholds of each standard, their verdicts from the
// accumulator, and the pieces of the result (indexes, sides).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "detail/compare_engine.hpp"

namespace skillrt::apic::detail {

Json index_of(uint64_t flat, const std::vector<int64_t>& shape) {
  Json idx = Json::array();
  std::vector<int64_t> out(shape.size(), 0);
  for (size_t k = shape.size(); k-- > 0;) {
    const auto dim = static_cast<uint64_t>(shape[k]);
    if (dim == 0) break;
    out[k] = static_cast<int64_t>(flat % dim);
    flat /= dim;
  }
  for (int64_t v : out) idx.push_back(v);
  return idx;
}

Json side_json(const TensorHeader& h) {
  return Json{{"source", h.source},
              {"format", h.format},
              {"dtype", std::string(dtype_name(h.logical))},
              {"storage_dtype", std::string(dtype_name(h.storage))},
              {"shape", h.shape},
              {"complex", h.complex}};
}

namespace {

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

double ops_threshold(DType t) {
  switch (t) {
    case DType::kFloat16:
      return std::ldexp(1.0, -10);
    case DType::kBFloat16:
      return std::ldexp(1.0, -7);
    case DType::kFloat32:
      return std::ldexp(1.0, -13);
    default:
      return 0;
  }
}

}  // namespace

Params make_params(DType dtype, DType other, const CompareOptions& options) {
  Params p;
  p.dtype = dtype;
  auto [rt, at] = torch_default_tolerances(dtype);
  const auto [rt2, at2] = torch_default_tolerances(other);
  // assert_close takes the loosest default over the dtypes involved.
  rt = std::max(rt, rt2);
  at = std::max(at, at2);
  p.rtol = options.rtol.value_or(rt);
  p.atol = options.atol.value_or(at);
  p.equal_nan = options.equal_nan;
  p.npu_bf16 = dtype == DType::kBFloat16;
  p.npu_prec = dtype == DType::kFloat16 ? 1e-3 : 1e-4;
  p.npu_floor = dtype == DType::kFloat16 ? 6e-8 : 1e-9;
  p.ms_eps = dtype == DType::kBFloat16 ? std::ldexp(1.0, -8) : machine_epsilon(dtype);
  const bool half_like = dtype == DType::kFloat16 || dtype == DType::kBFloat16;
  p.ms_small_bound = half_like ? std::ldexp(1.0, -10) : std::ldexp(1.0, -20);
  p.ms_small_atol = half_like ? std::ldexp(1.0, -16) : std::ldexp(1.0, -30);
  p.ulp_mantissa = mantissa_bits(dtype);
  p.ulp_min_exp = min_normal_exponent(dtype);
  p.ulp_threshold = half_like ? 1 : 32;
  p.top_k = std::max<size_t>(options.top_k, 1);
  return p;
}

Json standard_torch(const Acc& acc, const Params& p, bool explicit_tol) {
  const bool pass = acc.mismatch == 0;
  const double ratio = acc.n ? static_cast<double>(acc.mismatch) / acc.n : 0;
  std::string rule =
      "torch.testing.assert_close: |actual - expected| <= atol + rtol * |expected|"
      " with rtol=" +
      fmt(p.rtol) + ", atol=" + fmt(p.atol) +
      (explicit_tol ? " (given)" : " (defaults for " + std::string(dtype_name(p.dtype)) + ")") +
      ", equal_nan=" + (p.equal_nan ? "True" : "False") + "; non-finite values close only if equal";
  return Json{{"name", explicit_tol ? "custom" : "torch"},
              {"verdict", pass ? "pass" : "fail"},
              {"passed", pass},
              {"rule", rule},
              {"rtol", p.rtol},
              {"atol", p.atol},
              {"equal_nan", p.equal_nan},
              {"mismatched", acc.mismatch},
              {"total", acc.n},
              {"mismatch_ratio", ratio},
              {"reason", pass ? "all " + std::to_string(acc.n) + " elements within tolerance"
                              : std::to_string(acc.mismatch) + " of " + std::to_string(acc.n) +
                                    " elements outside tolerance (" + fmt(ratio * 100) + "%)"}};
}

Json standard_torch_npu(const Acc& acc, const Params& p, bool exact) {
  Json j{{"name", "torch_npu"}, {"total", acc.n}};
  if (exact) {
    const bool pass = acc.exact_mismatch == 0 && acc.nan_pos_mismatch == 0;
    j["rule"] = "assertRtolEqual on integer/bool tensors: every element equal";
    j["mismatched"] = acc.exact_mismatch;
    j["passed"] = pass;
    j["reason"] =
        pass ? "all elements equal" : std::to_string(acc.exact_mismatch) + " elements differ";
  } else if (p.npu_bf16) {
    const uint64_t bad = acc.npu_bf16_viol + acc.nan_e + acc.nan_a + acc.inf_mismatch;
    const bool pass = bad == 0;
    j["rule"] = "assertRtolEqual on bfloat16: torch.allclose(rtol=1e-3, atol=1e-3), NaN fails";
    j["mismatched"] = bad;
    j["passed"] = pass;
    j["reason"] = pass ? "all elements within allclose(1e-3, 1e-3)"
                       : std::to_string(bad) + " elements outside allclose(1e-3, 1e-3) or NaN";
  } else {
    const double limit = static_cast<double>(acc.n) * p.npu_prec;
    const uint64_t rel = acc.npu_rel_viol + acc.inf_mismatch;
    const uint64_t abs = acc.npu_abs_viol + acc.inf_mismatch;
    const bool nan_ok = acc.nan_pos_mismatch == 0;
    const bool pass = nan_ok && !(rel > limit && abs > limit);
    j["rule"] =
        "assertRtolEqual: NaN positions match, and not both count(rel > prec) > N*prec "
        "and count(abs > prec) > N*prec; prec=" +
        fmt(p.npu_prec) + ", rel = |a-e| / (max(|a|,|e|) + " + fmt(p.npu_floor) + ")";
    j["prec"] = p.npu_prec;
    j["relative_violations"] = rel;
    j["absolute_violations"] = abs;
    j["allowed_violations"] = limit;
    j["nan_positions_match"] = nan_ok;
    j["passed"] = pass;
    j["reason"] = !nan_ok ? std::to_string(acc.nan_pos_mismatch) + " NaN positions differ"
                  : pass  ? std::to_string(rel) + " relative and " + std::to_string(abs) +
                               " absolute violations, at most one count above " + fmt(limit)
                         : std::to_string(rel) + " relative and " + std::to_string(abs) +
                               " absolute violations, both above " + fmt(limit);
  }
  j["verdict"] = j["passed"].get<bool>() ? "pass" : "fail";
  return j;
}

Json standard_msprobe(const Acc& acc, const Params& p, bool exact, double cosine) {
  Json j{{"name", "msprobe"}, {"total", acc.n}};
  if (exact) {
    const double rate = acc.n ? static_cast<double>(acc.exact_mismatch) / acc.n : 0;
    j["rule"] = "msprobe run_ut: integer/bool outputs by binary error rate == 0";
    j["binary_error_rate"] = rate;
    j["verdict"] = acc.exact_mismatch == 0 ? "pass" : "error";
    j["reason"] = "binary error rate " + fmt(rate);
    j["passed"] = acc.exact_mismatch == 0;
    return j;
  }
  const double n = static_cast<double>(acc.n);
  const double r100 = n ? acc.ms_within[0] / n : 1, r1000 = n ? acc.ms_within[1] / n : 1,
               r10000 = n ? acc.ms_within[2] / n : 1;
  j["cosine"] = json_number(cosine);
  j["max_abs_error"] = json_number(acc.max_abs);
  j["ratio_1e-2"] = r100;
  j["ratio_1e-3"] = r1000;
  j["ratio_1e-4"] = r10000;
  j["small_value_elements"] = acc.ms_small;
  j["small_value_errors"] = acc.ms_small_fail;
  j["eps"] = p.ms_eps;
  std::string verdict;
  std::string reason;
  const uint64_t nonfinite_bad = acc.nan_pos_mismatch + acc.inf_mismatch;
  const bool half_like = p.dtype == DType::kFloat16 || p.dtype == DType::kBFloat16;
  if (nonfinite_bad > 0) {
    verdict = "error";
    reason = std::to_string(nonfinite_bad) + " NaN/Inf positions differ";
  } else if (!(cosine > 0.99) && !(acc.n_finite == 0)) {
    verdict = "error";
    reason = "cosine " + fmt(cosine) + " <= 0.99";
  } else if (acc.max_abs < 0.001) {
    verdict = "pass";
    reason = "max abs error " + fmt(acc.max_abs) + " < 0.001";
  } else if (half_like) {
    if (!(r100 > 1 - 1e-2)) {
      verdict = "error", reason = "双百 ratio " + fmt(r100) + " <= 0.99";
    } else if (r1000 > 1 - 1e-3) {
      verdict = "pass", reason = "双千 ratio " + fmt(r1000) + " > 0.999";
    } else {
      verdict = "warning", reason = "双千 ratio " + fmt(r1000) + " <= 0.999";
    }
  } else if (!(r1000 > 1 - 1e-3)) {
    verdict = "error", reason = "双千 ratio " + fmt(r1000) + " <= 0.999";
  } else if (!(r10000 > 1 - 1e-4)) {
    verdict = "warning", reason = "双万 ratio " + fmt(r10000) + " <= 0.9999";
  } else {
    verdict = "pass", reason = "双万 ratio " + fmt(r10000) + " > 0.9999";
  }
  j["rule"] =
      "msprobe run_ut _compare_float_tensor: cosine > 0.99, max abs < 0.001 passes, "
      "then 双百/双千 (fp16, bf16) or 双千/双万 (fp32, fp64) ratios; rel = |a-e| / (|e| + "
      "eps), small |e| judged by absolute error";
  j["verdict"] = verdict;
  j["passed"] = verdict == "pass";
  j["reason"] = reason;
  return j;
}

Json standard_ops(const Acc& acc, const Params& p, bool exact) {
  Json j{{"name", "ops"}, {"total", acc.n}};
  if (exact) {
    j["rule"] = "integer/bool outputs: exact";
    j["passed"] = acc.exact_mismatch == 0;
    j["verdict"] = acc.exact_mismatch == 0 ? "pass" : "fail";
    j["reason"] = std::to_string(acc.exact_mismatch) + " elements differ";
    return j;
  }
  const double t = ops_threshold(p.dtype);
  const double mere = acc.n_finite ? acc.ops_sum / acc.n_finite : 0;
  const double mare = acc.ops_max;
  j["mere"] = mere;
  j["mare"] = mare;
  j["threshold"] = t;
  j["rule"] = "operator precision standard: MERE < T and MARE < 10*T, rel = |a-e| / (|e| + 1e-7)";
  const uint64_t nonfinite_bad = acc.nan_pos_mismatch + acc.inf_mismatch;
  if (t == 0) {
    j["verdict"] = "undecided";
    j["passed"] = nullptr;
    j["reason"] = "the standard defines no threshold for " + std::string(dtype_name(p.dtype));
    return j;
  }
  const bool pass = nonfinite_bad == 0 && mere < t && mare < 10 * t;
  j["passed"] = pass;
  j["verdict"] = pass ? "pass" : "fail";
  j["reason"] = nonfinite_bad
                    ? std::to_string(nonfinite_bad) + " NaN/Inf positions differ"
                    : "MERE " + fmt(mere) + (mere < t ? " < " : " >= ") + fmt(t) + ", MARE " +
                          fmt(mare) + (mare < 10 * t ? " < " : " >= ") + fmt(10 * t);
  return j;
}

Json mismatch_result(const TensorHeader& he, const TensorHeader& ha, const std::string& check,
                     const std::string& message, const CompareOptions& options) {
  return Json{{"expected", side_json(he)},
              {"actual", side_json(ha)},
              {"dtype", std::string(dtype_name(ha.logical))},
              {"count", ha.count},
              {"standard", options.standard},
              {"verdict", "fail"},
              {"decided_by", check},
              {"message", message},
              {"shape_mismatch", check == "shape check"},
              {"dtype_mismatch", check == "dtype check"}};
}

}  // namespace skillrt::apic::detail
