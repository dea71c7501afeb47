#include "router/router.hpp"

namespace skillrt::router {

// Logistic coefficients fitted by bench/router/router_calibrate on the training split of
// tests/data/routing_dev.jsonl (held-out lines never enter the fit). Refit and paste the
// printed values here whenever the analyzer, the lexicon or the weights change; the
// evaluation test in tests/unit/router fails when routing quality drops.
Calibration Calibration::fitted() {
  Calibration c;
  c.bias = -8.4279;
  c.w_raw = 2.4111;
  c.w_coverage = 2.6793;
  c.w_margin = 2.9975;
  c.w_matched = 2.9487;
  return c;
}

}  // namespace skillrt::router
