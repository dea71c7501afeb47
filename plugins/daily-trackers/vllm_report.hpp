// The vllm-tracker digest as Markdown, self-contained HTML and JSON. Nothing in them depends on
// when or how often the data was fetched, so a resumed run writes the same report as an
// uninterrupted one.
#ifndef SKILLRT_DAILY_TRACKERS_VLLM_REPORT_HPP_
#define SKILLRT_DAILY_TRACKERS_VLLM_REPORT_HPP_

#include <map>
#include <string>
#include <vector>

#include "model.hpp"
#include "tracker_rules.hpp"

namespace skillrt::daily_trackers {

struct DigestItem {
  TrackedItem item;
  Assessment assessment;
  std::string change;  // new, updated, closed, merged, reopened, unchanged
  std::string summary;
};

struct DigestData {
  std::string window_since;
  std::string window_until;
  std::vector<std::string> rule_sources;
  std::vector<SourceStatus> sources;
  std::vector<DigestItem> items;           // rating high first
  std::map<std::string, size_t> excluded;  // filter -> items it dropped
  size_t unmatched = 0;                    // kept out: no model or topic matched
  bool has_previous = false;
  Json notes = Json::array();
};

std::string digest_markdown(const DigestData& d);
std::string digest_html(const DigestData& d);
Json digest_json(const DigestData& d);
Json digest_counts(const DigestData& d);
Json item_json(const DigestItem& i);

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_VLLM_REPORT_HPP_
