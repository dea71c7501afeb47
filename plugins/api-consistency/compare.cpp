#include "compare.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <queue>
#include <stdexcept>
#include <thread>
#include <vector>

namespace skillrt::apic {
namespace {

constexpr size_t kChunk = size_t{1} << 16;
constexpr int kSegments = 64;
// Histogram of |actual - expected| by binary exponent; [kHistLow, kHistHigh] plus an exact-zero
// bin. Exponent bins cost one shift per element and span every dtype's error range.
constexpr int kHistLow = -40;
constexpr int kHistHigh = 24;
constexpr int kHistBins = kHistHigh - kHistLow + 1;

// ---- element loaders: storage bytes -> double -----------------------------------------------

double half_to_double(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1u;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  double v;
  if (exp == 0) {
    v = std::ldexp(static_cast<double>(man), -24);
  } else if (exp == 31) {
    v = man == 0 ? std::numeric_limits<double>::infinity()
                 : std::numeric_limits<double>::quiet_NaN();
  } else {
    v = std::ldexp(static_cast<double>(man | 0x400u), static_cast<int>(exp) - 25);
  }
  return sign != 0u ? -v : v;
}

// Precomputed once: float16 conversion by table keeps the hot loop branch-free.
const std::vector<double>& half_table() {
  static const std::vector<double> kTable = [] {
    std::vector<double> t(65536);
    for (uint32_t i = 0; i < 65536; ++i) t[i] = half_to_double(static_cast<uint16_t>(i));
    return t;
  }();
  return kTable;
}

template <typename T>
T load_raw(const uint8_t* p, size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
struct PlainLoader {
  using Raw = T;
  static constexpr bool kExact = std::is_integral<T>::value;
  double get(const uint8_t* p, size_t i) const { return static_cast<double>(load_raw<T>(p, i)); }
  Raw raw(const uint8_t* p, size_t i) const { return load_raw<T>(p, i); }
};

struct HalfLoader {
  using Raw = uint16_t;
  static constexpr bool kExact = false;
  const double* table = half_table().data();
  double get(const uint8_t* p, size_t i) const { return table[load_raw<uint16_t>(p, i)]; }
  Raw raw(const uint8_t* p, size_t i) const { return load_raw<uint16_t>(p, i); }
};

struct BFloat16Loader {
  using Raw = uint16_t;
  static constexpr bool kExact = false;
  double get(const uint8_t* p, size_t i) const {
    const uint32_t bits = static_cast<uint32_t>(load_raw<uint16_t>(p, i)) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  Raw raw(const uint8_t* p, size_t i) const { return load_raw<uint16_t>(p, i); }
};

// ---- accumulation -----------------------------------------------------------------------------

struct Params {
  DType dtype = DType::kFloat32;  // the dtype the standards are evaluated for
  double rtol = 0;                // the active isclose rule (mismatch count)
  double atol = 0;
  bool equal_nan = false;
  double npu_prec = 1e-4;  // assertRtolEqual
  double npu_floor = 1e-9;
  bool npu_bf16 = false;
  double ms_eps = 0;  // msprobe relative-error epsilon
  double ms_small_bound = 0;
  double ms_small_atol = 0;
  int ulp_mantissa = 23;
  int ulp_min_exp = -126;
  double ulp_threshold = 32;
  size_t top_k = 10;
};

struct Worst {
  double abs_err;
  uint64_t index;
  double expected;
  double actual;
  bool operator<(const Worst& o) const { return abs_err > o.abs_err; }  // min-heap on abs_err
};

// Localisation (see "localisation" below): elements whose error relative to |expected| exceeds
// kOutlierFloor and that fail the active isclose rule are kept as candidates during the pass, with
// a joint histogram of the binary exponents of |a - e| and |e|; the tensor's error level and the
// outliers are decided after the pass, when rms(expected) is known.
constexpr double kOutlierFloor = 1.0 / 32;
constexpr size_t kMaxCandidates = size_t{1} << 16;
constexpr int kExpLow = kHistLow;  // |e| exponent bins share the error histogram's range
constexpr int kExpBins = kHistBins;

struct Candidate {
  uint64_t index;
  double expected;
  double actual;
};

struct Acc {
  uint64_t n = 0;
  uint64_t n_finite = 0;
  uint64_t nan_e = 0, nan_a = 0, pinf_e = 0, pinf_a = 0, ninf_e = 0, ninf_a = 0;
  uint64_t nan_both = 0, nan_pos_mismatch = 0, inf_mismatch = 0, inf_match = 0;
  double sum_abs = 0, max_abs = 0, max_abs_expected = 0, max_abs_actual = 0;
  uint64_t max_abs_index = 0;
  double sum_rel = 0, max_rel = 0;
  uint64_t max_rel_index = 0, rel_count = 0, rel_zero_expected = 0;
  double sum_sq = 0, dot = 0, ee = 0, aa = 0;
  uint64_t gt = 0, lt = 0;
  uint64_t mismatch = 0;  // the active isclose rule, over all elements
  uint64_t exact_mismatch = 0;
  uint64_t npu_rel_viol = 0, npu_abs_viol = 0, npu_bf16_viol = 0;
  uint64_t ms_within[3] = {0, 0, 0};  // relative error < 1e-2, 1e-3, 1e-4 (small: by atol)
  uint64_t ms_small = 0, ms_small_fail = 0;
  double ops_sum = 0, ops_max = 0;
  double ulp_sum = 0, ulp_max = 0;
  uint64_t ulp_over = 0;
  std::array<uint64_t, kHistBins> hist{};
  uint64_t hist_zero = 0;
  std::vector<uint64_t> hist2 = std::vector<uint64_t>(static_cast<size_t>(kHistBins * kExpBins));
  std::vector<Candidate> candidates;
  uint64_t candidates_dropped = 0;
  std::array<double, kSegments> seg_max{};
  std::array<uint64_t, kSegments> seg_mismatch{};
  std::priority_queue<Worst> worst;
  double worst_threshold = -1;
  std::vector<uint64_t> nonfinite_positions;
};

inline int exponent_of(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  return static_cast<int>((b >> 52) & 0x7ff) - 1023;
}

inline double pow2(int e) {
  const uint64_t b = static_cast<uint64_t>(e + 1023) << 52;
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

// One range of elements that all fall into one profile segment.
template <typename LE, typename LA>
void accumulate(const LE& le, const LA& la, const uint8_t* pe, const uint8_t* pa, size_t count,
                uint64_t base, int segment, const Params& prm, Acc& acc) {
  const double ms_t[3] = {1e-2, 1e-3, 1e-4};
  double seg_max = acc.seg_max[segment];
  uint64_t seg_mis = 0;
  for (size_t i = 0; i < count; ++i) {
    const double e = le.get(pe, i);
    const double a = la.get(pa, i);
    if constexpr (LE::kExact && LA::kExact &&
                  std::is_same<typename LE::Raw, typename LA::Raw>::value) {
      acc.exact_mismatch += le.raw(pe, i) != la.raw(pa, i);
    }
    if (std::isfinite(e) && std::isfinite(a)) {
      const double d = std::fabs(a - e);
      const double ae = std::fabs(e);
      const double aa = std::fabs(a);
      ++acc.n_finite;
      if (ae > acc.max_abs_expected) acc.max_abs_expected = ae;
      if (aa > acc.max_abs_actual) acc.max_abs_actual = aa;
      acc.sum_abs += d;
      if (d > acc.max_abs) {
        acc.max_abs = d;
        acc.max_abs_index = base + i;
      }
      acc.sum_sq += d * d;
      acc.dot += a * e;
      acc.ee += e * e;
      acc.aa += a * a;
      acc.gt += a > e;
      acc.lt += a < e;
      if (ae > 0) {
        const double r = d / ae;
        ++acc.rel_count;
        acc.sum_rel += r;
        if (r > acc.max_rel) {
          acc.max_rel = r;
          acc.max_rel_index = base + i;
        }
      } else if (d > 0) {
        ++acc.rel_zero_expected;
      }
      const bool mis = d > prm.atol + prm.rtol * ae;
      seg_mis += mis;
      if (d > seg_max) seg_max = d;
      acc.npu_rel_viol += d > prm.npu_prec * (std::max(ae, aa) + prm.npu_floor);
      acc.npu_abs_viol += d > prm.npu_prec;
      acc.npu_bf16_viol += d > 1e-3 + 1e-3 * ae;
      if (ae < prm.ms_small_bound) {
        ++acc.ms_small;
        const bool ok = d <= prm.ms_small_atol;
        acc.ms_small_fail += !ok;
        acc.ms_within[0] += ok;
        acc.ms_within[1] += ok;
        acc.ms_within[2] += ok;
      } else {
        const double den = ae + prm.ms_eps;
        acc.ms_within[0] += d < ms_t[0] * den;
        acc.ms_within[1] += d < ms_t[1] * den;
        acc.ms_within[2] += d < ms_t[2] * den;
      }
      const double ops = d / (ae + 1e-7);
      acc.ops_sum += ops;
      if (ops > acc.ops_max) acc.ops_max = ops;
      const int e_exp = exponent_of(e);
      const int ex = std::max(e_exp, prm.ulp_min_exp);
      const double ulp = d * pow2(prm.ulp_mantissa - ex);
      acc.ulp_sum += ulp;
      if (ulp > acc.ulp_max) acc.ulp_max = ulp;
      acc.ulp_over += ulp > prm.ulp_threshold;
      if (d == 0) {
        ++acc.hist_zero;
      } else {
        const int b = std::min(std::max(exponent_of(d), kHistLow), kHistHigh) - kHistLow;
        ++acc.hist[static_cast<size_t>(b)];
        const int be = std::min(std::max(e_exp, kExpLow), kExpLow + kExpBins - 1) - kExpLow;
        ++acc.hist2[static_cast<size_t>(b * kExpBins + be)];
        if (mis && d > kOutlierFloor * ae) {
          if (acc.candidates.size() < kMaxCandidates) {
            acc.candidates.push_back(Candidate{base + i, e, a});
          } else {
            ++acc.candidates_dropped;
          }
        }
      }
      if (d > acc.worst_threshold && d > 0) {
        acc.worst.push(Worst{d, base + i, e, a});
        if (acc.worst.size() > prm.top_k) acc.worst.pop();
        if (acc.worst.size() == prm.top_k) acc.worst_threshold = acc.worst.top().abs_err;
      }
      continue;
    }
    // Non-finite on at least one side: counted, never folded into the error statistics. The
    // finite side's magnitude still counts: it tells overflow apart from out-of-range values.
    if (std::isfinite(e) && std::fabs(e) > acc.max_abs_expected)
      acc.max_abs_expected = std::fabs(e);
    if (std::isfinite(a) && std::fabs(a) > acc.max_abs_actual) acc.max_abs_actual = std::fabs(a);
    const bool ne = std::isnan(e), na = std::isnan(a);
    acc.nan_e += ne;
    acc.nan_a += na;
    acc.pinf_e += e == HUGE_VAL;
    acc.pinf_a += a == HUGE_VAL;
    acc.ninf_e += e == -HUGE_VAL;
    acc.ninf_a += a == -HUGE_VAL;
    bool mis = false;
    if (ne || na) {
      if (ne && na) {
        ++acc.nan_both;
        mis = !prm.equal_nan;
      } else {
        ++acc.nan_pos_mismatch;
        mis = true;
      }
    } else if (e == a) {
      ++acc.inf_match;
    } else {
      ++acc.inf_mismatch;
      mis = true;
    }
    seg_mis += mis;
    if (mis && acc.nonfinite_positions.size() < prm.top_k) {
      acc.nonfinite_positions.push_back(base + i);
    }
  }
  acc.seg_max[segment] = seg_max;
  acc.seg_mismatch[segment] += seg_mis;
  acc.mismatch += seg_mis;
  acc.n += count;
}

// Streams both tensors and runs the kernel, splitting chunks at profile-segment boundaries.
template <typename LE, typename LA>
bool run_pass(TensorStream& se, TensorStream& sa, const LE& le, const LA& la, uint64_t begin,
              uint64_t end, uint64_t total, const Params& prm, const CompareOptions& options,
              Acc& acc) {
  const size_t ese = dtype_size(se.header().storage);
  const size_t esa = dtype_size(sa.header().storage);
  uint64_t done = begin;
  uint64_t next_report = begin + (uint64_t{1} << 24);
  while (done < end) {
    const uint8_t* pe = nullptr;
    const uint8_t* pa = nullptr;
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, end - done));
    const size_t ge = se.next(&pe, want);
    const size_t ga = sa.next(&pa, want);
    if (ge != want || ga != want) {
      throw TensorError("stream ended early (" + std::to_string(done + std::min(ge, ga)) + " of " +
                        std::to_string(total) + " elements); the file is truncated");
    }
    size_t off = 0;
    while (off < want) {
      const uint64_t g = done + off;
      const int seg = static_cast<int>(g * kSegments / total);
      const uint64_t seg_end = (static_cast<uint64_t>(seg) + 1) * total / kSegments;
      const uint64_t seg_end_ceil =
          seg_end * kSegments / total == static_cast<uint64_t>(seg) ? seg_end + 1 : seg_end;
      const size_t take = static_cast<size_t>(std::min<uint64_t>(want - off, seg_end_ceil - g));
      accumulate(le, la, pe + off * ese, pa + off * esa, take, g, seg, prm, acc);
      off += take;
    }
    done += want;
    if (options.progress && done >= next_report) {
      next_report += uint64_t{1} << 24;
      if (!options.progress(done, total)) return false;
    }
  }
  return true;
}

// Converts chunks of any storage to float64 so that mixed-dtype pairs share one kernel.
class WidenedStream : public TensorStream {
 public:
  explicit WidenedStream(std::unique_ptr<TensorStream> in) : in_(std::move(in)) {
    header_ = in_->header();
    header_.storage = DType::kFloat64;
  }
  size_t next(const uint8_t** data, size_t max_elems) override {
    const uint8_t* p = nullptr;
    const size_t n = in_->next(&p, max_elems);
    buf_.resize(n);
    const DType st = in_->header().storage;
    const bool bf16 =
        in_->header().logical == DType::kBFloat16 && st != DType::kFloat32 && st != DType::kFloat64;
    for (size_t i = 0; i < n; ++i) buf_[i] = widen(st, bf16, p, i);
    *data = reinterpret_cast<const uint8_t*>(buf_.data());
    return n;
  }

 private:
  static double widen(DType st, bool bf16, const uint8_t* p, size_t i) {
    if (bf16) return BFloat16Loader{}.get(p, i);
    switch (st) {
      case DType::kBool:
        return load_raw<uint8_t>(p, i) != 0 ? 1.0 : 0.0;
      case DType::kInt8:
        return load_raw<int8_t>(p, i);
      case DType::kUInt8:
        return load_raw<uint8_t>(p, i);
      case DType::kInt16:
        return load_raw<int16_t>(p, i);
      case DType::kUInt16:
        return load_raw<uint16_t>(p, i);
      case DType::kInt32:
        return load_raw<int32_t>(p, i);
      case DType::kUInt32:
        return load_raw<uint32_t>(p, i);
      case DType::kInt64:
        return static_cast<double>(load_raw<int64_t>(p, i));
      case DType::kUInt64:
        return static_cast<double>(load_raw<uint64_t>(p, i));
      case DType::kFloat16:
        return half_to_double(load_raw<uint16_t>(p, i));
      case DType::kBFloat16:
        return BFloat16Loader{}.get(p, i);
      case DType::kFloat32:
        return load_raw<float>(p, i);
      case DType::kFloat64:
        return load_raw<double>(p, i);
    }
    return 0;
  }
  std::unique_ptr<TensorStream> in_;
  std::vector<double> buf_;
};

template <typename L>
bool run_same(TensorStream& se, TensorStream& sa, uint64_t begin, uint64_t end, uint64_t total,
              const Params& prm, const CompareOptions& options, Acc& acc) {
  return run_pass(se, sa, L{}, L{}, begin, end, total, prm, options, acc);
}

bool dispatch(TensorStream& se, TensorStream& sa, uint64_t begin, uint64_t end, uint64_t total,
              const Params& prm, const CompareOptions& options, Acc& acc) {
  const DType st = se.header().storage;
  const bool bf16_bits =
      se.header().logical == DType::kBFloat16 && (st == DType::kUInt16 || st == DType::kInt16);
  if (bf16_bits) return run_same<BFloat16Loader>(se, sa, begin, end, total, prm, options, acc);
  switch (st) {
    case DType::kBool:
    case DType::kUInt8:
      return run_same<PlainLoader<uint8_t>>(se, sa, begin, end, total, prm, options, acc);
    case DType::kInt8:
      return run_same<PlainLoader<int8_t>>(se, sa, begin, end, total, prm, options, acc);
    case DType::kInt16:
      return run_same<PlainLoader<int16_t>>(se, sa, begin, end, total, prm, options, acc);
    case DType::kUInt16:
      return run_same<PlainLoader<uint16_t>>(se, sa, begin, end, total, prm, options, acc);
    case DType::kInt32:
      return run_same<PlainLoader<int32_t>>(se, sa, begin, end, total, prm, options, acc);
    case DType::kUInt32:
      return run_same<PlainLoader<uint32_t>>(se, sa, begin, end, total, prm, options, acc);
    case DType::kInt64:
      return run_same<PlainLoader<int64_t>>(se, sa, begin, end, total, prm, options, acc);
    case DType::kUInt64:
      return run_same<PlainLoader<uint64_t>>(se, sa, begin, end, total, prm, options, acc);
    case DType::kFloat16:
      return run_same<HalfLoader>(se, sa, begin, end, total, prm, options, acc);
    case DType::kBFloat16:
      return run_same<BFloat16Loader>(se, sa, begin, end, total, prm, options, acc);
    case DType::kFloat32:
      return run_same<PlainLoader<float>>(se, sa, begin, end, total, prm, options, acc);
    case DType::kFloat64:
      return run_same<PlainLoader<double>>(se, sa, begin, end, total, prm, options, acc);
  }
  return false;
}

// Folds the accumulator of a later element range into `into`.
void merge(Acc& into, Acc& from, size_t top_k) {
  into.n += from.n;
  into.n_finite += from.n_finite;
  into.nan_e += from.nan_e, into.nan_a += from.nan_a;
  into.pinf_e += from.pinf_e, into.pinf_a += from.pinf_a;
  into.ninf_e += from.ninf_e, into.ninf_a += from.ninf_a;
  into.nan_both += from.nan_both, into.nan_pos_mismatch += from.nan_pos_mismatch;
  into.inf_mismatch += from.inf_mismatch, into.inf_match += from.inf_match;
  into.sum_abs += from.sum_abs;
  if (from.max_abs > into.max_abs)
    into.max_abs = from.max_abs, into.max_abs_index = from.max_abs_index;
  into.max_abs_expected = std::max(into.max_abs_expected, from.max_abs_expected);
  into.max_abs_actual = std::max(into.max_abs_actual, from.max_abs_actual);
  into.sum_rel += from.sum_rel;
  if (from.max_rel > into.max_rel)
    into.max_rel = from.max_rel, into.max_rel_index = from.max_rel_index;
  into.rel_count += from.rel_count, into.rel_zero_expected += from.rel_zero_expected;
  into.sum_sq += from.sum_sq, into.dot += from.dot, into.ee += from.ee, into.aa += from.aa;
  into.gt += from.gt, into.lt += from.lt;
  into.mismatch += from.mismatch, into.exact_mismatch += from.exact_mismatch;
  into.npu_rel_viol += from.npu_rel_viol, into.npu_abs_viol += from.npu_abs_viol;
  into.npu_bf16_viol += from.npu_bf16_viol;
  for (int k = 0; k < 3; ++k) into.ms_within[k] += from.ms_within[k];
  into.ms_small += from.ms_small, into.ms_small_fail += from.ms_small_fail;
  into.ops_sum += from.ops_sum, into.ops_max = std::max(into.ops_max, from.ops_max);
  into.ulp_sum += from.ulp_sum, into.ulp_max = std::max(into.ulp_max, from.ulp_max);
  into.ulp_over += from.ulp_over;
  for (size_t k = 0; k < into.hist.size(); ++k) into.hist[k] += from.hist[k];
  into.hist_zero += from.hist_zero;
  for (size_t k = 0; k < into.hist2.size(); ++k) into.hist2[k] += from.hist2[k];
  for (const Candidate& c : from.candidates) {
    if (into.candidates.size() < kMaxCandidates) {
      into.candidates.push_back(c);
    } else {
      ++into.candidates_dropped;
    }
  }
  into.candidates_dropped += from.candidates_dropped;
  for (size_t k = 0; k < into.seg_max.size(); ++k) {
    into.seg_max[k] = std::max(into.seg_max[k], from.seg_max[k]);
    into.seg_mismatch[k] += from.seg_mismatch[k];
  }
  while (!from.worst.empty()) {
    into.worst.push(from.worst.top());
    from.worst.pop();
    if (into.worst.size() > top_k) into.worst.pop();
  }
  for (uint64_t p : from.nonfinite_positions) {
    if (into.nonfinite_positions.size() < top_k) into.nonfinite_positions.push_back(p);
  }
}

// Large tensors are split in two halves compared on two threads, each with its own streams: the
// pass is bound by per-element work, not by I/O, once the file is in the page cache.
constexpr uint64_t kParallelMin = uint64_t{1} << 23;

bool run_parallel(const TensorSpec& expected, const TensorSpec& actual, TensorStream& se,
                  TensorStream& sa, uint64_t total, const Params& prm,
                  const CompareOptions& options, Acc& acc) {
  const uint64_t half = total / 2;
  Acc second;
  std::exception_ptr error;
  bool ok2 = true;
  CompareOptions quiet = options;
  quiet.progress = nullptr;
  std::thread worker([&] {
    try {
      auto e2 = open_tensor(expected);
      auto a2 = open_tensor(actual);
      for (uint64_t skipped = 0; skipped < half;) {
        const uint8_t* p = nullptr;
        const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, half - skipped));
        if (e2->next(&p, want) != want || a2->next(&p, want) != want) {
          throw TensorError("stream ended early while seeking; the file is truncated");
        }
        skipped += want;
      }
      ok2 = dispatch(*e2, *a2, half, total, total, prm, quiet, second);
    } catch (...) {
      error = std::current_exception();
    }
  });
  bool ok1 = false;
  try {
    ok1 = dispatch(se, sa, 0, half, total, prm, options, acc);
  } catch (...) {
    worker.join();
    throw;
  }
  worker.join();
  if (error) std::rethrow_exception(error);
  merge(acc, second, prm.top_k);
  return ok1 && ok2;
}

// ---- localisation -------------------------------------------------------------------------------

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
double outlier_threshold(double typical) {
  return std::min(kOutlierCeiling, std::max(kOutlierFloor, kOutlierFactor * typical));
}

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

// ---- results ----------------------------------------------------------------------------------

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

}  // namespace

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
  const bool same_storage = he.storage == ha.storage &&
                            (he.logical == DType::kBFloat16) == (ha.logical == DType::kBFloat16);
  if (!same_storage) {
    se = std::make_unique<WidenedStream>(std::move(se));
    sa = std::make_unique<WidenedStream>(std::move(sa));
  }
  const DType dtype = ha.logical;
  const bool exact = !is_float(he.logical) && !is_float(ha.logical);
  const Params prm = make_params(dtype, he.logical, options);
  Acc acc;
  // Splitting needs a cheap seek: mapped .npy and raw files have one; an .npz member might be
  // deflated, and the second half would first inflate the whole first half.
  const auto seekable = [](const TensorHeader& h) {
    return (h.format == "npy" || h.format == "raw") && !h.fortran;
  };
  const bool parallel =
      same_storage && he.count >= kParallelMin && !he.complex && seekable(he) && seekable(ha);
  const bool finished = parallel
                            ? run_parallel(expected, actual, *se, *sa, he.count, prm, options, acc)
                            : dispatch(*se, *sa, 0, he.count, he.count, prm, options, acc);
  if (!finished) {
    throw std::runtime_error("comparison cancelled");
  }
  if (exact && (!same_storage || is_float(he.storage))) {
    // Integers widened to double (mixed storage, JSON) are compared by value; exact below 2^53.
    acc.exact_mismatch = acc.mismatch;
  }
  // Raw integer comparison sees differences beyond 2^53 that the double difference misses.
  if (exact) acc.mismatch = std::max(acc.mismatch, acc.exact_mismatch);

  const double nf = static_cast<double>(acc.n_finite);
  const double cosine = (acc.ee == 0 && acc.aa == 0) ? 1.0
                        : (acc.ee == 0 || acc.aa == 0)
                            ? 0.0
                            : acc.dot / (std::sqrt(acc.ee) * std::sqrt(acc.aa));
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
  const double rms_expected = nf ? std::sqrt(acc.ee / nf) : 0;
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
  m["max_abs_index"] = acc.max_abs > 0 ? index_of(acc.max_abs_index, ha.shape) : Json();
  m["max_rel_index"] = acc.max_rel > 0 ? index_of(acc.max_rel_index, ha.shape) : Json();

  Json standards;
  const bool explicit_tol = options.rtol.has_value();
  standards["torch"] = standard_torch(acc, prm, explicit_tol);
  standards["torch_npu"] = standard_torch_npu(acc, prm, exact);
  standards["msprobe"] = standard_msprobe(acc, prm, exact, cosine);
  standards["ops"] = standard_ops(acc, prm, exact);
  const std::string key = options.standard == "custom" ? "torch" : options.standard;
  const Json& chosen = standards[key];

  std::vector<Worst> worst;
  auto heap = acc.worst;
  while (!heap.empty()) worst.push_back(heap.top()), heap.pop();
  std::reverse(worst.begin(), worst.end());
  Json wj = Json::array();
  for (const Worst& w : worst) {
    const double ae = std::fabs(w.expected);
    wj.push_back(Json{{"flat_index", w.index},
                      {"index", index_of(w.index, ha.shape)},
                      {"expected", json_number(w.expected)},
                      {"actual", json_number(w.actual)},
                      {"abs_error", json_number(w.abs_err)},
                      {"rel_error", ae > 0 ? json_number(w.abs_err / ae) : Json("inf")}});
  }
  Json nfj = Json::array();
  for (uint64_t i : acc.nonfinite_positions) {
    nfj.push_back(Json{{"flat_index", i}, {"index", index_of(i, ha.shape)}});
  }
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
           {"metrics", m},
           {"standards", standards},
           {"standard", options.standard},
           {"verdict", chosen["verdict"]},
           {"decided_by", chosen["rule"]},
           {"reason", chosen["reason"]},
           {"worst", wj},
           {"nonfinite_positions", nfj},
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
