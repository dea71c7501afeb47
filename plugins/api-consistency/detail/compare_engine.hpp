// The compare engine's parts: the accumulator one streaming pass fills (compare_pass.cpp), the
// localisation of outliers (compare_locality.cpp), the standards' verdicts and result pieces
// (compare_standards.cpp); compare.cpp puts them together.
#ifndef SKILLRT_API_CONSISTENCY_DETAIL_COMPARE_ENGINE_HPP_
#define SKILLRT_API_CONSISTENCY_DETAIL_COMPARE_ENGINE_HPP_

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "compare.hpp"
#include "tensor_reader.hpp"

namespace skillrt::apic::detail {

constexpr size_t kChunk = size_t{1} << 16;
constexpr int kSegments = 64;
// Histogram of |actual - expected| by binary exponent; [kHistLow, kHistHigh] plus an exact-zero
// bin. Exponent bins cost one shift per element and span every dtype's error range.
constexpr int kHistLow = -40;
constexpr int kHistHigh = 24;
constexpr int kHistBins = kHistHigh - kHistLow + 1;

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

// Converts chunks of any storage to float64 so that mixed-dtype pairs share one kernel.
class WidenedStream : public TensorStream {
 public:
  explicit WidenedStream(std::unique_ptr<TensorStream> in);
  size_t next(const uint8_t** data, size_t max_elems) override;

 private:
  static double widen(DType st, bool bf16, const uint8_t* p, size_t i);
  std::unique_ptr<TensorStream> in_;
  std::vector<double> buf_;
};

// Large tensors are split in two halves compared on two threads, each with its own streams: the
// pass is bound by per-element work, not by I/O, once the file is in the page cache.
constexpr uint64_t kParallelMin = uint64_t{1} << 23;
// One pass over elements [begin, end) of both streams into `acc`; false when cancelled.
bool dispatch(TensorStream& se, TensorStream& sa, uint64_t begin, uint64_t end, uint64_t total,
              const Params& prm, const CompareOptions& options, Acc& acc);

// The pass split over two threads (see kParallelMin); false when cancelled.
bool run_parallel(const TensorSpec& expected, const TensorSpec& actual, TensorStream& se,
                  TensorStream& sa, uint64_t total, const Params& prm,
                  const CompareOptions& options, Acc& acc);

// The median normalised error from the pass's joint exponent histogram (upper edge of the bin the
// median falls in: |a - e| and |e| are each known within a factor of 2).
double median_normalised(const Acc& acc, double floor);

// The locality result from the candidates kept by a pass: outliers, their count per profile
// segment and the worst of them.
Json summarise_locality(std::vector<Candidate> candidates, double floor, double median, DType dtype,
                        const Params& prm, uint64_t total, bool second_pass);

// More candidates than the pass keeps: a second pass over the files with the floor known keeps
// only true outliers (still at most kMaxCandidates of them listed; the count is exact).
Json localise_again(const TensorSpec& expected, const TensorSpec& actual, double floor,
                    double median, DType dtype, const Params& prm, uint64_t total);

// A flat index as a multi-dimensional one for `shape`.
Json index_of(uint64_t flat, const std::vector<int64_t>& shape);

// A tensor's side of the result: source, format, dtypes, shape.
Json side_json(const TensorHeader& h);

// The thresholds of every standard for a dtype (and the other side's), with the caller's
// tolerances.
Params make_params(DType dtype, DType other, const CompareOptions& options);

// The verdicts of the four standards from one pass's accumulator.
Json standard_torch(const Acc& acc, const Params& p, bool explicit_tol);

Json standard_torch_npu(const Acc& acc, const Params& p, bool exact);

Json standard_msprobe(const Acc& acc, const Params& p, bool exact, double cosine);

Json standard_ops(const Acc& acc, const Params& p, bool exact);

// The result of a pair whose shapes or dtypes differ: no values compared.
Json mismatch_result(const TensorHeader& he, const TensorHeader& ha, const std::string& check,
                     const std::string& message, const CompareOptions& options);

}  // namespace skillrt::apic::detail

#endif  // SKILLRT_API_CONSISTENCY_DETAIL_COMPARE_ENGINE_HPP_
