#include "router/router.hpp"

namespace skillrt::router {

// Logistic coefficients fitted by bench/router/router_calibrate on the training split of
// tests/data/routing_dev.jsonl (held-out lines never enter the fit). Refit and paste the
// printed values here whenever the analyzer, the lexicon or the weights change; the
// evaluation test in tests/unit/router fails when routing quality drops.
Calibration Calibration::fitted() {
  Calibration c;
  c.bias = -13.8010;
  c.w_raw = 3.2043;
  c.w_coverage = 2.3923;
  c.w_margin = 2.5902;
  c.w_matched = 5.4478;
  return c;
}

}  // namespace skillrt::router
