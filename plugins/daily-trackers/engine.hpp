// What both trackers share beyond the store and the sources: the call's hooks, dates, the
// GitHub client options, and delivery (report files under output_dir, then e-mail).
#ifndef SKILLRT_DAILY_TRACKERS_ENGINE_HPP_
#define SKILLRT_DAILY_TRACKERS_ENGINE_HPP_

#include <cstdint>
#include <functional>
#include <string>

#include "github_source.hpp"  // pr-analysis
#include "model.hpp"

namespace skillrt::daily_trackers {

struct Hooks {
  std::function<void(double done, double total, const std::string& what)> progress;
  std::function<bool()> cancelled;
  std::function<void(double seconds)> sleep;  // tests record rate-limit waits instead
};

// Said in every report until the host offers MCP sampling (ABI 1.1).
extern const char* const kLlmNote;

std::string today_utc();
// "YYYY-MM-DD" of a time; throws InputError naming `field` for text that is not a date.
int64_t date_field(const Json& in, const char* field, bool end_of_day, int64_t fallback);
std::string day_of(int64_t t);

pr_analysis::GithubOptions github_options(const Json& in, const Hooks& hooks);

// The files a report consists of; xlsx is written by the caller (it needs the data, not text).
struct ReportTexts {
  std::string stem;  // file name without extension
  std::string markdown;
  std::string html;
  Json json;
};

// Writes stem.md, stem.html and stem.json under output_dir (atomically), then mails the HTML
// with the Markdown attached when the request has `email`. Returns {"reports": {...},
// "email": {...}}; a mail failure is reported there and in `notes`, the files stay.
Json deliver(const Json& in, const ReportTexts& texts, const std::string& subject, Json* notes);

// The path for a file under the request's output_dir; throws InputError when it would leave it.
std::string output_path(const Json& in, const std::string& name);

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_ENGINE_HPP_
