// The inferencex-report skill: InferenceX benchmark rows from HTTP(S) or local files into the
// history, what changed since the last finished run, the chosen sequence setting (8k/1k by
// default) across hardware, trend charts, and the report as Markdown, HTML, JSON and Excel,
// mailed when asked.
#ifndef SKILLRT_DAILY_TRACKERS_INFERENCEX_REPORT_HPP_
#define SKILLRT_DAILY_TRACKERS_INFERENCEX_REPORT_HPP_

#include "engine.hpp"
#include "model.hpp"

namespace skillrt::daily_trackers {

Json run_inferencex_report(const Json& in, const Hooks& hooks);

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_INFERENCEX_REPORT_HPP_
