// The compare engine's streaming pass: storage bytes loaded as double, every metric and counter
// accumulated per element, chunks dispatched by storage dtype, and large tensors on two threads.
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>
#include <type_traits>

#include "detail/compare_engine.hpp"

namespace skillrt::apic::detail {

namespace {

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

}  // namespace

WidenedStream::WidenedStream(std::unique_ptr<TensorStream> in) : in_(std::move(in)) {
  header_ = in_->header();
  header_.storage = DType::kFloat64;
}

size_t WidenedStream::next(const uint8_t** data, size_t max_elems) {
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

double WidenedStream::widen(DType st, bool bf16, const uint8_t* p, size_t i) {
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

namespace {

// msprobe's counters: relative error under 1e-2, 1e-3, 1e-4; small values by absolute error.
[[gnu::always_inline]] inline void count_msprobe(double d, double ae, const Params& prm, Acc& acc) {
  const double ms_t[3] = {1e-2, 1e-3, 1e-4};
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
}

// One pair of finite values. Forced inline: it is the body of the hot loop, split out to be read.
[[gnu::always_inline]] inline void accumulate_finite(double e, double a, uint64_t index,
                                                     const Params& prm, Acc& acc, double& seg_max,
                                                     uint64_t& seg_mis) {
  const double d = std::fabs(a - e);
  const double ae = std::fabs(e);
  const double aa = std::fabs(a);
  ++acc.n_finite;
  if (ae > acc.max_abs_expected) acc.max_abs_expected = ae;
  if (aa > acc.max_abs_actual) acc.max_abs_actual = aa;
  acc.sum_abs += d;
  if (d > acc.max_abs) {
    acc.max_abs = d;
    acc.max_abs_index = index;
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
      acc.max_rel_index = index;
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
  count_msprobe(d, ae, prm, acc);
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
        acc.candidates.push_back(Candidate{index, e, a});
      } else {
        ++acc.candidates_dropped;
      }
    }
  }
  if (d > acc.worst_threshold && d > 0) {
    acc.worst.push(Worst{d, index, e, a});
    if (acc.worst.size() > prm.top_k) acc.worst.pop();
    if (acc.worst.size() == prm.top_k) acc.worst_threshold = acc.worst.top().abs_err;
  }
}

// Non-finite on at least one side: counted, never folded into the error statistics. The
// finite side's magnitude still counts: it tells overflow apart from out-of-range values.
[[gnu::always_inline]] inline void accumulate_nonfinite(double e, double a, uint64_t index,
                                                        const Params& prm, Acc& acc,
                                                        uint64_t& seg_mis) {
  if (std::isfinite(e) && std::fabs(e) > acc.max_abs_expected) acc.max_abs_expected = std::fabs(e);
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
    acc.nonfinite_positions.push_back(index);
  }
}

// One range of elements that all fall into one profile segment.
template <typename LE, typename LA>
void accumulate(const LE& le, const LA& la, const uint8_t* pe, const uint8_t* pa, size_t count,
                uint64_t base, int segment, const Params& prm, Acc& acc) {
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
      accumulate_finite(e, a, base + i, prm, acc, seg_max, seg_mis);
    } else {
      accumulate_nonfinite(e, a, base + i, prm, acc, seg_mis);
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

template <typename L>
bool run_same(TensorStream& se, TensorStream& sa, uint64_t begin, uint64_t end, uint64_t total,
              const Params& prm, const CompareOptions& options, Acc& acc) {
  return run_pass(se, sa, L{}, L{}, begin, end, total, prm, options, acc);
}

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace skillrt::apic::detail
