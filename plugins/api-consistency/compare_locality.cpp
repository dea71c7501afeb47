// The compare engine's localisation: elements far off the tensor's own error level, found from
// the pass's candidates (or a second pass when it kept too many).
#include <algorithm>
#include <cmath>
#include <map>

#include "detail/compare_engine.hpp"

namespace skillrt::apic::detail {

// Finds elements far off the tensor's own error level, so that a few gross errors are not averaged
// away by many good elements (a kernel that skips a tile, or writes one wrong value, passes
// count-based standards).
//
// The normalised error of an element is |a - e| / max(|e|, floor), with floor = rms(expected) / 8:
// relative error for ordinary elements, and error relative to the tensor's scale where a sum
// cancels to near zero (there the absolute error, not the relative one, is what rounding bounds).
// An outlier is an element whose normalised error exceeds 2^-5 and 64 times the median (at least
// the dtype's unit roundoff), or 0.25 whatever the median, and that fails the active isclose rule.
constexpr double kOutlierFactor = 64;
// However noisy the tensor, an element off by more than a quarter of itself (or of the floor) is an
// outlier: for bfloat16, 64 times a median near 2^-7 would otherwise let an unwritten tile through.
constexpr double kOutlierCeiling = 0.25;

// The normalised error above which an element is an outlier, given the tensor's typical one.

namespace {

// The normalised error above which an element is an outlier, given the tensor's typical one.
double outlier_threshold(double typical) {
  return std::min(kOutlierCeiling, std::max(kOutlierFloor, kOutlierFactor * typical));
}

}  // namespace

// The median normalised error from the pass's joint exponent histogram (upper edge of the bin the
// median falls in: |a - e| and |e| are each known within a factor of 2).
double median_normalised(const Acc& acc, double floor) {
  const uint64_t finite = acc.n_finite;
  uint64_t seen = acc.hist_zero;
  if (seen * 2 >= finite) return 0;
  const int f_exp = exponent_of(floor);
  std::map<int, uint64_t> by_exp;
  for (int b = 0; b < kHistBins; ++b) {
    for (int be = 0; be < kExpBins; ++be) {
      const uint64_t n = acc.hist2[static_cast<size_t>(b * kExpBins + be)];
      if (n != 0) by_exp[(b + kHistLow) - std::max(be + kExpLow, f_exp) + 1] += n;
    }
  }
  for (const auto& [exp2, n] : by_exp) {
    seen += n;
    if (seen * 2 >= finite) return std::ldexp(1.0, exp2);
  }
  return 0;
}

Json summarise_locality(std::vector<Candidate> candidates, double floor, double median, DType dtype,
                        const Params& prm, uint64_t total, bool second_pass) {
  const double typical = std::max(median, unit_roundoff(dtype));
  const double threshold = outlier_threshold(typical);
  const auto norm = [&](const Candidate& c) {
    return std::fabs(c.actual - c.expected) / std::max(std::fabs(c.expected), floor);
  };
  std::sort(candidates.begin(), candidates.end(),
            [&](const Candidate& x, const Candidate& y) { return norm(x) > norm(y); });
  uint64_t outliers = 0, zero_actual = 0;
  std::array<uint64_t, kSegments> seg{};
  Json first = Json::array();
  for (const Candidate& c : candidates) {
    const double n = norm(c);
    if (n <= threshold) break;
    ++outliers;
    zero_actual += c.actual == 0 && c.expected != 0;
    ++seg[static_cast<size_t>(c.index * kSegments / std::max<uint64_t>(total, 1))];
    if (first.size() < prm.top_k) {
      first.push_back(Json{{"flat_index", c.index},
                           {"expected", json_number(c.expected)},
                           {"actual", json_number(c.actual)},
                           {"normalised_error", json_number(n)}});
    }
  }
  Json segments = Json::array();
  for (int i = 0; i < kSegments; ++i) {
    if (seg[static_cast<size_t>(i)] != 0) segments.push_back(i);
  }
  return Json{{"floor", json_number(floor)},
              {"median_normalised_error", json_number(median)},
              {"typical", json_number(typical)},
              {"threshold", json_number(threshold)},
              {"outliers", outliers},
              {"outlier_ratio", total ? static_cast<double>(outliers) / total : 0.0},
              {"outliers_zero_actual", zero_actual},
              {"outlier_segments", segments},
              {"worst_outliers", first},
              {"second_pass", second_pass}};
}

// More candidates than the pass keeps: a second pass over the files with the floor known keeps
// only true outliers (still at most kMaxCandidates of them listed; the count is exact).
Json localise_again(const TensorSpec& expected, const TensorSpec& actual, double floor,
                    double median, DType dtype, const Params& prm, uint64_t total) {
  auto se = std::make_unique<WidenedStream>(open_tensor(expected));
  auto sa = std::make_unique<WidenedStream>(open_tensor(actual));
  const double threshold = outlier_threshold(std::max(median, unit_roundoff(dtype)));
  std::vector<Candidate> kept;
  uint64_t count = 0;
  for (uint64_t done = 0; done < total;) {
    const uint8_t* pe = nullptr;
    const uint8_t* pa = nullptr;
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, total - done));
    if (se->next(&pe, want) != want || sa->next(&pa, want) != want) {
      throw TensorError("stream ended early in the localisation pass; the file is truncated");
    }
    for (size_t i = 0; i < want; ++i) {
      double e, a;
      std::memcpy(&e, pe + 8 * i, 8);
      std::memcpy(&a, pa + 8 * i, 8);
      if (!std::isfinite(e) || !std::isfinite(a)) continue;
      const double d = std::fabs(a - e);
      if (d / std::max(std::fabs(e), floor) <= threshold || d <= prm.atol + prm.rtol * std::fabs(e))
        continue;
      ++count;
      if (kept.size() < kMaxCandidates) kept.push_back(Candidate{done + i, e, a});
    }
    done += want;
  }
  Json out = summarise_locality(std::move(kept), floor, median, dtype, prm, total, true);
  out["outliers"] = count;
  out["outlier_ratio"] = total ? static_cast<double>(count) / total : 0.0;
  return out;
}

}  // namespace skillrt::apic::detail
