// The vllm-tracker skill: the window's PRs and issues of vLLM and vllm-ascend (GitHub or local
// clones), kept in the history, filtered and rated by the rule file, reported in Markdown,
// HTML and JSON, and mailed when asked.
#ifndef SKILLRT_DAILY_TRACKERS_VLLM_TRACKER_HPP_
#define SKILLRT_DAILY_TRACKERS_VLLM_TRACKER_HPP_

#include "engine.hpp"
#include "model.hpp"
#include "tracker_rules.hpp"

namespace skillrt::daily_trackers {

Json run_vllm_tracker(const Json& in, const Hooks& hooks);

// The shipped rule file merged with the request's `rules` file, if any.
TrackerRules load_tracker_rules(const Json& in);

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_VLLM_TRACKER_HPP_
