#include "router/router.hpp"

namespace skillrt::router {

// Logistic coefficients fitted by bench/router/router_calibrate on the training split of
// tests/data/routing_dev.jsonl (its "test" split and tests/data/routing_heldout.jsonl never
// enter the fit). Refit and paste the printed values here whenever the analyzer, the lexicon,
// the grammar, the skill cards or the weights change; the evaluation tests in
// tests/unit/router fail when routing quality drops. w_raw comes out slightly negative: raw
// and matched move together, and the fit trusts the matched content more than raw alone.
Calibration Calibration::fitted() {
  Calibration c;
  c.bias = -7.7408;
  c.w_raw = -1.9039;
  c.w_coverage = 7.3977;
  c.w_margin = 6.4205;
  c.w_matched = 2.7849;
  c.w_known = 3.7866;
  return c;
}

}  // namespace skillrt::router
