#include "checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "compare.hpp"
#include "dtype.hpp"

namespace skillrt::apic {
namespace {

// Inputs of these checks are read whole; 16M elements is 128 MiB of doubles per tensor.
constexpr uint64_t kMaxElements = uint64_t{1} << 24;

struct Loaded {
  TensorHeader header;
  std::vector<double> values;
};

Loaded load(const TensorSpec& spec) {
  Loaded l;
  l.values = read_values(spec, &l.header, kMaxElements);
  return l;
}

std::vector<uint64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<uint64_t> st(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) st[i - 1] = st[i] * static_cast<uint64_t>(shape[i]);
  return st;
}

// ---- linear algebra ----------------------------------------------------------------------------

// Row-major r x c matrix views over one batch element.
struct Mat {
  const double* p;
  int64_t r, c;
  double at(int64_t i, int64_t j) const { return p[i * c + j]; }
};

std::vector<double> matmul(const Mat& x, const Mat& y) {
  std::vector<double> out(static_cast<size_t>(x.r * y.c), 0.0);
  for (int64_t i = 0; i < x.r; ++i) {
    for (int64_t k = 0; k < x.c; ++k) {
      const double v = x.at(i, k);
      if (v == 0) continue;
      for (int64_t j = 0; j < y.c; ++j) out[static_cast<size_t>(i * y.c + j)] += v * y.at(k, j);
    }
  }
  return out;
}

double frob(const double* p, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += p[i] * p[i];
  return std::sqrt(s);
}

// The relative residual of one batch element of X for A (and B).
double residual_one(const std::string& kind, const Mat& a, const Mat& x, const Mat* b) {
  const double na = frob(a.p, static_cast<size_t>(a.r * a.c));
  const double nx = frob(x.p, static_cast<size_t>(x.r * x.c));
  if (kind == "inv") {
    std::vector<double> r = matmul(a, x);
    for (int64_t i = 0; i < a.r; ++i) r[static_cast<size_t>(i * x.c + i)] -= 1.0;
    const double den = na * nx;
    return den > 0 ? frob(r.data(), r.size()) / den : HUGE_VAL;
  }
  if (kind == "solve") {
    std::vector<double> r = matmul(a, x);
    for (size_t i = 0; i < r.size(); ++i) r[i] -= b->p[i];
    const double den = na * nx + frob(b->p, static_cast<size_t>(b->r * b->c));
    return den > 0 ? frob(r.data(), r.size()) / den : HUGE_VAL;
  }
  std::vector<double> ax = matmul(a, x);
  std::vector<double> r = matmul(Mat{ax.data(), a.r, x.c}, a);
  for (size_t i = 0; i < r.size(); ++i) r[i] -= a.p[i];
  const double den = na * na * nx;
  return den > 0 ? frob(r.data(), r.size()) / den : HUGE_VAL;
}

// ---- formulas
// ------------------------------------------------------------------------------------

struct Formula {
  const char* name;
  std::function<double(double)> f;
};

double gelu_tanh(double x) {
  constexpr double kPi = 3.14159265358979323846;
  const double k = std::sqrt(2.0 / kPi);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}
double gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

// The float32 bit trick for 1/sqrt(x) (magic constant 0x5F3759DF) with one Newton step, as fast
// approximate kernels compute it.
double rsqrt_bit_trick(double xd) {
  const float x = static_cast<float>(xd);
  uint32_t i;
  std::memcpy(&i, &x, 4);
  i = 0x5F3759DFu - (i >> 1);
  float y;
  std::memcpy(&y, &i, 4);
  y = y * (1.5f - 0.5f * x * y * y);
  return y;
}

std::vector<Formula> alternatives_for(const std::string& api) {
  const std::string base =
      api.substr(api.find_last_of('.') == std::string::npos ? 0 : api.find_last_of('.') + 1);
  if (base == "gelu" || base == "GELU") {
    return {{"gelu tanh approximation 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3)))", gelu_tanh},
            {"gelu erf form 0.5x(1+erf(x/sqrt(2)))", gelu_erf}};
  }
  if (base == "rsqrt" || base == "rsqrt_") {
    return {{"rsqrt bit trick (0x5F3759DF) with one Newton step", rsqrt_bit_trick}};
  }
  return {};
}

}  // namespace

std::string residual_kind(const std::string& api) {
  static const char* kInv[] = {"torch.linalg.inv", "torch.inverse", "torch.Tensor.inverse",
                               "torch.linalg.inv_ex"};
  static const char* kSolve[] = {"torch.linalg.solve", "torch.linalg.solve_ex"};
  static const char* kPinv[] = {"torch.linalg.pinv", "torch.pinverse", "torch.Tensor.pinverse"};
  for (const char* n : kInv) {
    if (api == n) return "inv";
  }
  for (const char* n : kSolve) {
    if (api == n) return "solve";
  }
  for (const char* n : kPinv) {
    if (api == n) return "pinv";
  }
  return "";
}

Json check_index_ties(const TensorSpec& input, const TensorSpec& expected, const TensorSpec& actual,
                      int64_t dim) {
  const Loaded in = load(input);
  const Loaded e = load(expected);
  const Loaded a = load(actual);
  const auto& ins = in.header.shape;
  const auto& xs = e.header.shape;
  if (xs != a.header.shape) {
    throw std::invalid_argument("index outputs differ in shape: " + shape_text(xs) + " vs " +
                                shape_text(a.header.shape));
  }
  const int64_t nd = static_cast<int64_t>(ins.size());
  const int64_t d = dim < 0 ? dim + nd : dim;
  enum { kGather, kReduced, kFlat } mode;
  if (xs.empty() || (nd == 0)) {
    mode = kFlat;
  } else if (static_cast<int64_t>(xs.size()) == nd && d >= 0 && d < nd) {
    mode = kGather;
    for (int64_t j = 0; j < nd; ++j) {
      if (j != d && xs[static_cast<size_t>(j)] > ins[static_cast<size_t>(j)]) {
        throw std::invalid_argument("index output " + shape_text(xs) + " does not index input " +
                                    shape_text(ins) + " along dim " + std::to_string(dim));
      }
    }
  } else if (static_cast<int64_t>(xs.size()) == nd - 1 && d >= 0 && d < nd) {
    mode = kReduced;
    for (int64_t j = 0, k = 0; j < nd; ++j) {
      if (j == d) continue;
      if (xs[static_cast<size_t>(k++)] != ins[static_cast<size_t>(j)]) {
        throw std::invalid_argument("index output " + shape_text(xs) + " is not input " +
                                    shape_text(ins) + " reduced along dim " + std::to_string(dim));
      }
    }
  } else {
    throw std::invalid_argument("index output " + shape_text(xs) + " fits neither input " +
                                shape_text(ins) + " along dim " + std::to_string(dim) +
                                " nor a flat index; give 'dim'");
  }
  const std::vector<uint64_t> in_st = strides_of(ins);
  const std::vector<uint64_t> x_st = strides_of(xs);
  const uint64_t in_count = in.values.size();
  // The input offset an index value at output position p points to; npos when out of range.
  const auto target = [&](uint64_t p, double idx) -> uint64_t {
    if (idx != std::floor(idx)) return UINT64_MAX;
    if (mode == kFlat) {
      return idx >= 0 && idx < static_cast<double>(in_count) ? static_cast<uint64_t>(idx)
                                                             : UINT64_MAX;
    }
    const int64_t size_d = ins[static_cast<size_t>(d)];
    if (idx < 0 || idx >= static_cast<double>(size_d)) return UINT64_MAX;
    uint64_t off = 0, rest = p;
    for (size_t j = 0, k = 0; j < ins.size(); ++j) {
      if (static_cast<int64_t>(j) == d) {
        off += static_cast<uint64_t>(idx) * in_st[j];
        if (mode == kGather) {
          rest %= x_st[k];
          ++k;
        }
        continue;
      }
      const uint64_t m = rest / x_st[k];
      rest %= x_st[k];
      ++k;
      off += m * in_st[j];
    }
    return off;
  };
  uint64_t differing = 0, ties = 0, not_ties = 0;
  Json tie_examples = Json::array(), other_examples = Json::array();
  for (uint64_t p = 0; p < e.values.size(); ++p) {
    const double ie = e.values[p], ia = a.values[p];
    if (ie == ia) continue;
    ++differing;
    const uint64_t te = target(p, ie), ta = target(p, ia);
    const bool in_range = te != UINT64_MAX && ta != UINT64_MAX;
    const double ve = in_range ? in.values[te] : std::nan("");
    const double va = in_range ? in.values[ta] : std::nan("");
    const bool tie = in_range && (ve == va || (std::isnan(ve) && std::isnan(va)));
    (tie ? ties : not_ties) += 1;
    Json& list = tie ? tie_examples : other_examples;
    if (list.size() < 5) {
      Json ex{{"flat_index", p},
              {"expected_index", ie},
              {"actual_index", ia},
              {"expected_value", json_number(ve)},
              {"actual_value", json_number(va)}};
      if (!in_range) ex["note"] = "index out of range of the input";
      list.push_back(ex);
    }
  }
  for (auto& x : tie_examples) other_examples.push_back(x);
  return Json{{"differing", differing},
              {"ties", ties},
              {"not_ties", not_ties},
              {"dim", dim},
              {"input", in.header.source},
              {"mode", mode == kGather    ? "gather"
                       : mode == kReduced ? "reduced"
                                          : "flat"},
              {"examples", other_examples}};
}

Json check_residual(const std::string& kind, const TensorSpec& a_spec,
                    const std::optional<TensorSpec>& b_spec, const TensorSpec& expected,
                    const TensorSpec& actual) {
  const Loaded a = load(a_spec);
  const Loaded xe = load(expected);
  const Loaded xa = load(actual);
  std::optional<Loaded> b;
  if (kind == "solve") {
    if (!b_spec) throw std::invalid_argument("the residual of solve needs inputs.B");
    b = load(*b_spec);
  }
  const auto& as = a.header.shape;
  if (as.size() < 2) {
    throw std::invalid_argument("inputs.A " + shape_text(as) + " is not a matrix (..., m, n)");
  }
  const int64_t m = as[as.size() - 2], n = as[as.size() - 1];
  const uint64_t batch = a.values.size() / std::max<uint64_t>(static_cast<uint64_t>(m * n), 1);
  const auto& xs = xe.header.shape;
  if (xs != xa.header.shape) {
    throw std::invalid_argument("results differ in shape: " + shape_text(xs) + " vs " +
                                shape_text(xa.header.shape));
  }
  int64_t xr = 0, xc = 0;
  if (kind == "inv") {
    if (m != n || xs != as) {
      throw std::invalid_argument("inv: A " + shape_text(as) +
                                  " must be square and match the result " + shape_text(xs));
    }
    xr = n, xc = n;
  } else if (kind == "pinv") {
    xr = n, xc = m;
  } else {
    xr = n;
    xc = xs.size() == as.size() ? xs.back() : 1;  // (..., n, k) or (..., n)
  }
  if (xe.values.size() != batch * static_cast<uint64_t>(xr * xc) ||
      (b && b->values.size() != batch * static_cast<uint64_t>(m * xc))) {
    throw std::invalid_argument(kind + ": result " + shape_text(xs) + " does not fit A " +
                                shape_text(as) +
                                (b ? " and B " + shape_text(b->header.shape) : ""));
  }
  const double flops = static_cast<double>(batch) * static_cast<double>(m) *
                       static_cast<double>(n) * static_cast<double>(std::max(xc, m)) * 4;
  if (flops > 4e9) {
    throw std::invalid_argument("residual check of " + shape_text(as) +
                                " needs too many operations (over 4e9); compare a slice");
  }
  double re = 0, ra = 0, cond = 0;
  for (uint64_t k = 0; k < batch; ++k) {
    const Mat am{a.values.data() + k * static_cast<uint64_t>(m * n), m, n};
    const Mat em{xe.values.data() + k * static_cast<uint64_t>(xr * xc), xr, xc};
    const Mat acm{xa.values.data() + k * static_cast<uint64_t>(xr * xc), xr, xc};
    std::optional<Mat> bm;
    if (b) bm = Mat{b->values.data() + k * static_cast<uint64_t>(m * xc), m, xc};
    re = std::max(re, residual_one(kind, am, em, bm ? &*bm : nullptr));
    ra = std::max(ra, residual_one(kind, am, acm, bm ? &*bm : nullptr));
    cond = std::max(
        cond, frob(am.p, static_cast<size_t>(m * n)) * frob(em.p, static_cast<size_t>(xr * xc)));
  }
  // Rounding in the result's dtype alone leaves a residual of order n * u: below that floor two
  // residuals are equally good.
  const double floor = static_cast<double>(std::max(m, n)) * unit_roundoff(xa.header.logical);
  return Json{{"kind", kind},
              {"n", n},
              {"batch", batch},
              {"residual_expected", json_number(re)},
              {"residual_actual", json_number(ra)},
              {"floor", json_number(floor)},
              {"residual_ratio", json_number(ra / std::max(re, floor))},
              {"condition_estimate", json_number(cond)},
              {"definition", kind == "inv"     ? "||A X - I|| / (||A|| ||X||)"
                             : kind == "solve" ? "||A X - B|| / (||A|| ||X|| + ||B||)"
                                               : "||A X A - A|| / (||A||^2 ||X||)"}};
}

Json check_formula(const std::string& api, const TensorSpec& input, const TensorSpec& expected,
                   const TensorSpec& actual) {
  const Loaded x = load(input);
  const Loaded e = load(expected);
  const Loaded a = load(actual);
  if (x.values.size() != e.values.size() || e.values.size() != a.values.size()) {
    throw std::invalid_argument("inputs.input " + shape_text(x.header.shape) +
                                " is not the shape of the output " + shape_text(e.header.shape) +
                                "; the formula check is for elementwise APIs");
  }
  const size_t count = x.values.size();
  double sum_sq = 0;
  size_t finite = 0;
  for (double v : e.values) {
    if (std::isfinite(v)) sum_sq += v * v, ++finite;
  }
  const double floor = std::max(finite ? std::sqrt(sum_sq / finite) / 8 : 0.0, 1e-30);
  const double u = unit_roundoff(a.header.logical);
  const auto norm_err = [&](double got, double want) {
    return std::fabs(got - want) / std::max(std::fabs(want), floor);
  };
  double err_asked = 0;
  std::vector<double> r(count, std::nan(""));
  for (size_t i = 0; i < count; ++i) {
    if (!std::isfinite(e.values[i]) || !std::isfinite(a.values[i])) continue;
    err_asked = std::max(err_asked, norm_err(a.values[i], e.values[i]));
    r[i] = (a.values[i] - e.values[i]) / std::max(std::fabs(e.values[i]), floor);
  }
  Json alts = Json::array();
  std::string matched;
  for (const Formula& f : alternatives_for(api)) {
    double err = 0;
    for (size_t i = 0; i < count; ++i) {
      const double want = f.f(x.values[i]);
      if (!std::isfinite(want) || !std::isfinite(a.values[i])) continue;
      err = std::max(err, norm_err(a.values[i], want));
    }
    // The device follows the alternative to within a few rounding units, and the API's own
    // formula (the golden) is clearly farther away.
    const bool matches = err <= 64 * u && err_asked > 16 * u && err * 8 <= err_asked;
    alts.push_back(Json{
        {"name", f.name}, {"max_error_vs_alternative", json_number(err)}, {"matches", matches}});
    if (matches && matched.empty()) matched = f.name;
  }
  // Smoothness: mean |r| difference of neighbours in input order (distinct inputs only) against
  // that of elements half the range apart. Rounding noise gives about 1; a formula gives << 1.
  std::vector<size_t> order;
  order.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (!std::isnan(r[i]) && std::isfinite(x.values[i])) order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](size_t p, size_t q) { return x.values[p] < x.values[q]; });
  double adj = 0, far = 0;
  size_t n_adj = 0;
  const size_t half = order.size() / 2;
  for (size_t k = 0; k + 1 < order.size(); ++k) {
    if (x.values[order[k]] == x.values[order[k + 1]]) continue;
    adj += std::fabs(r[order[k + 1]] - r[order[k]]);
    ++n_adj;
  }
  for (size_t k = 0; k < half; ++k) far += std::fabs(r[order[k + half]] - r[order[k]]);
  Json smooth = nullptr;
  bool systematic = false;
  if (n_adj >= 64 && far > 0) {
    const double s = (adj / static_cast<double>(n_adj)) / (far / static_cast<double>(half));
    smooth = json_number(s);
    systematic = s < 0.25;
  }
  return Json{{"alternatives", alts},
              {"matched", matched.empty() ? Json() : Json(matched)},
              {"max_error_vs_golden", json_number(err_asked)},
              {"smoothness", smooth},
              {"systematic", systematic},
              {"samples", order.size()}};
}

}  // namespace skillrt::apic
