#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "detail/compare_engine.hpp"

namespace skillrt::apic {

Json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

std::pair<double, double> torch_default_tolerances(DType t) {
  switch (t) {
    case DType::kFloat16:
      return {1e-3, 1e-5};
    case DType::kBFloat16:
      return {1.6e-2, 1e-5};
    case DType::kFloat32:
      return {1.3e-6, 1e-5};
    case DType::kFloat64:
      return {1e-7, 1e-7};
    default:
      return {0.0, 0.0};
  }
}

bool is_known_standard(const std::string& name) {
  return name == "torch" || name == "torch_npu" || name == "msprobe" || name == "ops" ||
         name == "custom";
}

void validate_options(const CompareOptions& options) {
  if (!is_known_standard(options.standard)) {
    throw std::invalid_argument("standard '" + options.standard +
                                "' is unknown; use torch, torch_npu, msprobe, ops or custom");
  }
  if (options.rtol.has_value() != options.atol.has_value()) {
    // assert_close raises ValueError for the same reason: one tolerance alone is ambiguous.
    throw std::invalid_argument("give both 'rtol' and 'atol' or neither (as assert_close)");
  }
  if (options.standard == "custom" && !options.rtol) {
    throw std::invalid_argument("standard 'custom' needs 'rtol' and 'atol'");
  }
  if ((options.rtol && *options.rtol < 0) || (options.atol && *options.atol < 0)) {
    throw std::invalid_argument("'rtol' and 'atol' must be >= 0");
  }
}

namespace {

using detail::Acc;
using detail::index_of;
using detail::kChunk;
using detail::kHistLow;
using detail::kParallelMin;
using detail::kSegments;
using detail::localise_again;
using detail::make_params;
using detail::median_normalised;
using detail::mismatch_result;
using detail::Params;
using detail::side_json;
using detail::standard_msprobe;
using detail::standard_ops;
using detail::standard_torch;
using detail::standard_torch_npu;
using detail::summarise_locality;
using detail::WidenedStream;
using detail::Worst;

// One pass over both tensors (two threads for large ones that seek cheaply); mixed storage is
// widened to double first. Throws when cancelled.
Acc scan(const TensorSpec& expected, const TensorSpec& actual, std::unique_ptr<TensorStream> se,
         std::unique_ptr<TensorStream> sa, const Params& prm, const CompareOptions& options,
         bool exact) {
  const TensorHeader he = se->header();
  const TensorHeader ha = sa->header();
  const bool same_storage = he.storage == ha.storage &&
                            (he.logical == DType::kBFloat16) == (ha.logical == DType::kBFloat16);
  if (!same_storage) {
    se = std::make_unique<WidenedStream>(std::move(se));
    sa = std::make_unique<WidenedStream>(std::move(sa));
  }
  Acc acc;
  // Splitting needs a cheap seek: mapped .npy and raw files have one; an .npz member might be
  // deflated, and the second half would first inflate the whole first half.
  const auto seekable = [](const TensorHeader& h) {
    return (h.format == "npy" || h.format == "raw") && !h.fortran;
  };
  const bool parallel =
      same_storage && he.count >= kParallelMin && !he.complex && seekable(he) && seekable(ha);
  const bool finished =
      parallel ? detail::run_parallel(expected, actual, *se, *sa, he.count, prm, options, acc)
               : detail::dispatch(*se, *sa, 0, he.count, he.count, prm, options, acc);
  if (!finished) {
    throw std::runtime_error("comparison cancelled");
  }
  if (exact && (!same_storage || is_float(he.storage))) {
    // Integers widened to double (mixed storage, JSON) are compared by value; exact below 2^53.
    acc.exact_mismatch = acc.mismatch;
  }
  // Raw integer comparison sees differences beyond 2^53 that the double difference misses.
  if (exact) acc.mismatch = std::max(acc.mismatch, acc.exact_mismatch);
  return acc;
}

Json metrics_json(const Acc& acc, const Params& prm, DType dtype, bool exact, double cosine,
                  const std::vector<int64_t>& shape) {
  const double nf = static_cast<double>(acc.n_finite);
  const double rms_expected = nf ? std::sqrt(acc.ee / nf) : 0;
  Json m;
  m["elements"] = acc.n;
  m["finite_pairs"] = acc.n_finite;
  m["max_abs_error"] = json_number(acc.max_abs);
  m["max_abs_expected"] = json_number(acc.max_abs_expected);
  m["max_abs_actual"] = json_number(acc.max_abs_actual);
  m["mean_abs_error"] = json_number(nf ? acc.sum_abs / nf : 0);
  m["max_rel_error"] = json_number(acc.max_rel);
  m["mean_rel_error"] = json_number(acc.rel_count ? acc.sum_rel / acc.rel_count : 0);
  m["rel_error_excluded_zero_expected"] = acc.rel_zero_expected;
  m["rmse"] = json_number(nf ? std::sqrt(acc.sum_sq / nf) : 0);
  m["rms_expected"] = json_number(rms_expected);
  // ||a - e|| / ||e||: the error relative to the tensor's scale, which rounding bounds even where
  // single elements cancel to near zero.
  m["norm_rel_error"] = rms_expected > 0 ? json_number(std::sqrt(acc.sum_sq / acc.ee)) : Json();
  m["unit_roundoff"] = exact ? 0.0 : unit_roundoff(dtype);
  m["cosine_similarity"] = json_number(cosine);
  m["error_balance"] =
      nf ? std::fabs(static_cast<double>(acc.gt) - static_cast<double>(acc.lt)) / nf : 0.0;
  m["greater_count"] = acc.gt;
  m["less_count"] = acc.lt;
  m["ulp_max"] = json_number(acc.ulp_max);
  m["ulp_mean"] = json_number(nf ? acc.ulp_sum / nf : 0);
  m["ulp_over_threshold"] = acc.ulp_over;
  m["ulp_threshold"] = prm.ulp_threshold;
  m["mismatched"] = acc.mismatch;
  m["mismatch_ratio"] = acc.n ? static_cast<double>(acc.mismatch) / acc.n : 0.0;
  m["rtol"] = prm.rtol;
  m["atol"] = prm.atol;
  m["exact"] = exact;
  if (exact) m["exact_mismatched"] = acc.exact_mismatch;
  m["nan"] = Json{{"expected", acc.nan_e},
                  {"actual", acc.nan_a},
                  {"both", acc.nan_both},
                  {"positions_agree", acc.nan_pos_mismatch == 0},
                  {"position_mismatches", acc.nan_pos_mismatch}};
  m["inf"] = Json{{"expected_pos", acc.pinf_e},
                  {"expected_neg", acc.ninf_e},
                  {"actual_pos", acc.pinf_a},
                  {"actual_neg", acc.ninf_a},
                  {"matched", acc.inf_match},
                  {"positions_agree", acc.inf_mismatch == 0},
                  {"position_mismatches", acc.inf_mismatch}};
  m["max_abs_index"] = acc.max_abs > 0 ? index_of(acc.max_abs_index, shape) : Json();
  m["max_rel_index"] = acc.max_rel > 0 ? index_of(acc.max_rel_index, shape) : Json();
  return m;
}

// The top_k largest absolute errors, largest first.
Json worst_json(const Acc& acc, const std::vector<int64_t>& shape) {
  std::vector<Worst> worst;
  auto heap = acc.worst;
  while (!heap.empty()) worst.push_back(heap.top()), heap.pop();
  std::reverse(worst.begin(), worst.end());
  Json wj = Json::array();
  for (const Worst& w : worst) {
    const double ae = std::fabs(w.expected);
    wj.push_back(Json{{"flat_index", w.index},
                      {"index", index_of(w.index, shape)},
                      {"expected", json_number(w.expected)},
                      {"actual", json_number(w.actual)},
                      {"abs_error", json_number(w.abs_err)},
                      {"rel_error", ae > 0 ? json_number(w.abs_err / ae) : Json("inf")}});
  }
  return wj;
}

Json nonfinite_json(const Acc& acc, const std::vector<int64_t>& shape) {
  Json nfj = Json::array();
  for (uint64_t i : acc.nonfinite_positions) {
    nfj.push_back(Json{{"flat_index", i}, {"index", index_of(i, shape)}});
  }
  return nfj;
}

}  // namespace

Json compare_tensors(const TensorSpec& expected, const TensorSpec& actual,
                     const CompareOptions& options) {
  validate_options(options);
  std::unique_ptr<TensorStream> se = open_tensor(expected);
  std::unique_ptr<TensorStream> sa = open_tensor(actual);
  const TensorHeader he = se->header();
  const TensorHeader ha = sa->header();
  if (he.shape != ha.shape) {
    return mismatch_result(he, ha, "shape check",
                           "shape mismatch: expected " + shape_text(he.shape) + " (" + he.source +
                               ") vs actual " + shape_text(ha.shape) + " (" + ha.source +
                               "); values are not compared",
                           options);
  }
  if (he.logical != ha.logical && options.check_dtype) {
    return mismatch_result(he, ha, "dtype check",
                           "dtype mismatch: expected " + std::string(dtype_name(he.logical)) +
                               " (" + he.source + ") vs actual " +
                               std::string(dtype_name(ha.logical)) + " (" + ha.source +
                               "); set check_dtype false to compare values anyway",
                           options);
  }
  const DType dtype = ha.logical;
  const bool exact = !is_float(he.logical) && !is_float(ha.logical);
  const Params prm = make_params(dtype, he.logical, options);
  Acc acc = scan(expected, actual, std::move(se), std::move(sa), prm, options, exact);
  const double nf = static_cast<double>(acc.n_finite);
  const double cosine = (acc.ee == 0 && acc.aa == 0) ? 1.0
                        : (acc.ee == 0 || acc.aa == 0)
                            ? 0.0
                            : acc.dot / (std::sqrt(acc.ee) * std::sqrt(acc.aa));
  const double rms_expected = nf ? std::sqrt(acc.ee / nf) : 0;
  Json standards;
  const bool explicit_tol = options.rtol.has_value();
  standards["torch"] = standard_torch(acc, prm, explicit_tol);
  standards["torch_npu"] = standard_torch_npu(acc, prm, exact);
  standards["msprobe"] = standard_msprobe(acc, prm, exact, cosine);
  standards["ops"] = standard_ops(acc, prm, exact);
  const std::string key = options.standard == "custom" ? "torch" : options.standard;
  const Json& chosen = standards[key];
  Json hist{{"unit", "binary exponent of |actual - expected|"},
            {"low_exponent", kHistLow},
            {"zero", acc.hist_zero},
            {"bins", acc.hist}};
  Json profile{
      {"segments", kSegments}, {"max_abs_error", acc.seg_max}, {"mismatched", acc.seg_mismatch}};
  Json out{{"expected", side_json(he)},
           {"actual", side_json(ha)},
           {"dtype", std::string(dtype_name(dtype))},
           {"count", acc.n},
           {"metrics", metrics_json(acc, prm, dtype, exact, cosine, ha.shape)},
           {"standards", standards},
           {"standard", options.standard},
           {"verdict", chosen["verdict"]},
           {"decided_by", chosen["rule"]},
           {"reason", chosen["reason"]},
           {"worst", worst_json(acc, ha.shape)},
           {"nonfinite_positions", nonfinite_json(acc, ha.shape)},
           {"histogram", hist},
           {"profile", profile},
           {"shape_mismatch", false},
           {"dtype_mismatch", he.logical != ha.logical}};
  if (acc.n == 0)
    out["reason"] = "empty tensors (shape " + shape_text(ha.shape) + "): nothing differs";
  if (options.localise && !exact && acc.max_abs > 0) {
    const double floor = std::max(rms_expected / 8, std::ldexp(1.0, min_normal_exponent(dtype)));
    const double median = median_normalised(acc, floor);
    out["locality"] =
        acc.candidates_dropped == 0
            ? summarise_locality(std::move(acc.candidates), floor, median, dtype, prm, acc.n, false)
            : localise_again(expected, actual, floor, median, dtype, prm, acc.n);
    for (auto& w : out["locality"]["worst_outliers"]) {
      w["index"] = index_of(w["flat_index"].get<uint64_t>(), ha.shape);
    }
  }
  return out;
}

std::vector<double> read_values(const TensorSpec& spec, TensorHeader* header,
                                uint64_t max_elements) {
  auto s = std::make_unique<WidenedStream>(open_tensor(spec));
  const TensorHeader& h = s->header();
  if (h.count > max_elements) {
    throw TensorError(h.source + ": " + std::to_string(h.count) +
                      " elements; checks that need the " + "whole tensor in memory read at most " +
                      std::to_string(max_elements));
  }
  std::vector<double> out(static_cast<size_t>(h.count));
  for (uint64_t done = 0; done < h.count;) {
    const uint8_t* p = nullptr;
    const size_t n = s->next(&p, static_cast<size_t>(std::min<uint64_t>(kChunk, h.count - done)));
    if (n == 0) throw TensorError(h.source + ": data ends early (truncated file)");
    std::memcpy(out.data() + done, p, n * sizeof(double));
    done += n;
  }
  if (header != nullptr) *header = h;
  return out;
}

}  // namespace skillrt::apic
