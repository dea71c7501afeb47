// The state machine of one case: state.json, the step records and the loop over the steps.
#include "detail/case_runner.hpp"

#include <algorithm>

#include "detail/files.hpp"
#include "detail/text.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::issue_pipeline::detail {

namespace fs = std::filesystem;

namespace {

// What a finished attempt leaves in the step's "previous" list when the step runs again. Not
// const: a key a hand-edited state lacks is added as null, as a read through st() would.
Json attempt_record(Json& s) {
  return Json{
      {"status", s["status"]}, {"started_at", s["started_at"]}, {"finished_at", s["finished_at"]},
      {"result", s["result"]}, {"error", s["error"]},           {"commands", s["commands"]}};
}

}  // namespace

void CaseRunner::save() {
  state_["updated_at"] = now_utc();
  plugin_io::write_file_atomic((dir_ / "state.json").string(), state_.dump(2) + "\n");
}

void CaseRunner::event(const std::string& what) {
  state_["history"].push_back(Json{{"at", now_utc()}, {"event", what}});
}

void CaseRunner::begin(const std::string& step) {
  Json& s = st(step);
  if (s["status"] == "running") {
    // The last run stopped inside this step (killed, crashed): keep what it recorded.
    s["interrupted"].push_back(Json{
        {"started_at", s["started_at"]}, {"detected_at", now_utc()}, {"commands", s["commands"]}});
    event(step + ": previous attempt was interrupted; running it again");
  } else if (s["status"] == "done" || s["status"] == "failed") {
    s["previous"].push_back(attempt_record(s));
  }
  s["status"] = "running";
  s["attempts"] = s.value("attempts", 0) + 1;
  s["started_at"] = now_utc();
  s["finished_at"] = nullptr;
  s["commands"] = Json::array();
  s["result"] = nullptr;
  s["error"] = nullptr;
  event(step + ": started (attempt " + std::to_string(s["attempts"].get<int>()) + ")");
  save();
}

void CaseRunner::finish(const std::string& step, Json result) {
  Json& s = st(step);
  s["status"] = "done";
  s["finished_at"] = now_utc();
  s["result"] = std::move(result);
  event(step + ": done");
  save();
}

void CaseRunner::failed(const std::string& step, int32_t code, const std::string& message,
                        Json result) {
  Json& s = st(step);
  s["status"] = "failed";
  s["finished_at"] = now_utc();
  s["error"] = Json{{"code", code}, {"message", message}};
  if (!result.is_null()) s["result"] = std::move(result);
  event(step + ": failed: " + message);
  save();
  throw fail(code, "case " + case_id_ + ", step " + step + ": " + message +
                       " (state: " + (dir_ / "state.json").string() + ")");
}

void CaseRunner::load_or_create() {
  const std::string test = in_.value("case", "");
  if (in_.contains("case_id")) {
    case_id_ = in_["case_id"];
  } else {
    if (test.empty()) throw fail(SKILLRT_INVALID_ARGUMENT, "case: give the failing test id");
    case_id_ = case_id_from_test(test);
  }
  dir_ = s_.workspace / case_id_;
  const fs::path state_file = dir_ / "state.json";
  std::error_code ec;
  if (fs::exists(state_file, ec)) {
    state_ = Json::parse(read_file(state_file.string()));
    if (!test.empty() && state_["test"]["id"] != test) {
      throw fail(SKILLRT_INVALID_ARGUMENT, "case_id " + case_id_ + " already holds test " +
                                               state_["test"]["id"].get<std::string>() + " (" +
                                               state_file.string() + "), not " + test +
                                               "; choose another case_id");
    }
    return;
  }
  if (s_.step == "status" || s_.step == "reset") {
    throw fail(SKILLRT_NOT_FOUND, "no case " + case_id_ + " in " + s_.workspace.string() + " (no " +
                                      state_file.string() + "); run a step first");
  }
  // Validated before anything is written, so a bad id leaves no trace.
  try {
    parse_test_id(test);
  } catch (const std::invalid_argument& e) {
    throw fail(SKILLRT_INVALID_ARGUMENT, e.what());
  }
  create_state(test);
}

// A new case directory with its state.json: every step pending, the settings it runs with and a
// copy of the CI log.
void CaseRunner::create_state(const std::string& test) {
  fs::create_directories(dir_);
  state_ = Json{{"schema_version", 1},    {"case_id", case_id_},      {"created_at", now_utc()},
                {"test", {{"id", test}}}, {"history", Json::array()}, {"steps", Json::object()}};
  for (const auto& step : kSteps) {
    state_["steps"][step] = Json{{"status", "pending"}, {"attempts", 0}};
  }
  Json settings{{"python", s_.python},
                {"test_timeout_s", s_.test_timeout_s},
                {"branch_prefix", s_.branch_prefix},
                {"test_command", s_.test_command},
                {"env", s_.env},
                {"repos", s_.repos}};
  state_["settings"] = settings;
  if (in_.contains("log")) {
    std::string source;
    const std::string log = text_or_file(in_["log"], &source);
    plugin_io::write_file_atomic((dir_ / "ci.log").string(), log);
    state_["log"] = Json{{"source", source},
                         {"copy", (dir_ / "ci.log").string()},
                         {"signature", to_json(failure_signature(log))}};
  } else {
    state_["log"] = nullptr;
  }
  event("case created");
  save();
}

Json CaseRunner::run() {
  load_or_create();
  FileLock lock((dir_ / ".lock").string());
  // A re-read under the lock: another process may have finished a step since.
  state_ = Json::parse(read_file((dir_ / "state.json").string()));
  if (in_.contains("patch")) state_["pending_patch"] = in_["patch"];
  if (s_.step == "status") return summary();
  if (s_.step == "reset") {
    reset_steps();
    return summary();
  }
  try {
    if (s_.step == "next" || s_.step == "all") {
      for (const auto& step : kSteps) {
        if (done(step)) continue;
        run_step(step);
        if (s_.step == "next") break;
      }
    } else {
      run_step(s_.step);
    }
  } catch (...) {
    write_reports();
    throw;
  }
  write_reports();
  return summary();
}

// The reset step and every later one go back to pending; their last attempt is kept.
void CaseRunner::reset_steps() {
  const auto it = std::find(kSteps.begin(), kSteps.end(), s_.reset_step);
  for (auto s = it; s != kSteps.end(); ++s) {
    Json& rec = st(*s);
    if (rec["status"] == "pending") continue;
    rec["previous"].push_back(attempt_record(rec));
    rec["status"] = "pending";
    rec["result"] = nullptr;
    rec["error"] = nullptr;
    rec["commands"] = Json::array();
  }
  event("reset from " + s_.reset_step);
  save();
  write_reports();
}

void CaseRunner::run_step(const std::string& step) {
  const auto it = std::find(kSteps.begin(), kSteps.end(), step);
  for (auto p = kSteps.begin(); p != it; ++p) {
    if (!done(*p)) {
      throw fail(SKILLRT_FAILED_PRECONDITION,
                 "case " + case_id_ + ": step " + step + " needs " + *p + " done first (it is " +
                     st(*p)["status"].get<std::string>() + "); run step '" + *p + "' or 'next'");
    }
  }
  const double index = static_cast<double>(it - kSteps.begin());
  ctx_.progress(index, static_cast<double>(kSteps.size()), case_id_ + ": " + step);
  ran_.push_back(step);
  begin(step);
  try {
    if (step == "env") step_env();
    if (step == "reproduce") step_reproduce();
    if (step == "diagnose") step_diagnose();
    if (step == "fix") step_fix();
    if (step == "verify") step_verify();
    if (step == "deliver") step_deliver();
  } catch (const SkillError& e) {
    if (st(step)["status"] == "running") failed(step, e.code(), e.what());
    throw;
  } catch (const std::exception& e) {
    if (st(step)["status"] == "running") failed(step, SKILLRT_INTERNAL, e.what());
    throw;
  }
  ctx_.progress(index + 1, static_cast<double>(kSteps.size()), case_id_ + ": " + step + " done");
}

}  // namespace skillrt::issue_pipeline::detail
