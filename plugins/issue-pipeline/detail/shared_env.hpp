// Repository checks, versions and the interpreter: prepared once per call and reused by every
// case of a batch (recorded in <workspace>/shared_env.json).
#ifndef SKILLRT_ISSUE_PIPELINE_DETAIL_SHARED_ENV_HPP_
#define SKILLRT_ISSUE_PIPELINE_DETAIL_SHARED_ENV_HPP_

#include <skillrt/sdk.hpp>

#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "detail/settings.hpp"

namespace skillrt::issue_pipeline::detail {

class SharedEnv {
 public:
  SharedEnv(const Settings& s, Context& ctx) : s_(s), ctx_(ctx) {}

  // Prepares on the first call; later calls return the same record or rethrow the same error.
  const Json& get();
  bool prepared() const { return done_ && !error_; }
  void note_user(const std::string& case_id);
  // Rewrites shared_env.json with the cases that used it.
  void finish();
  // git keeps worktree bookkeeping in the main repository; cases serialise on it.
  std::mutex& repo_mutex(const std::string& repo) { return repo_mu_[repo]; }

 private:
  struct Cmd {
    int exit_code;
    std::string out;
  };

  Cmd run(const std::vector<std::string>& argv, const std::string& cwd);
  void prepare();
  void check_repo(const std::string& name);
  void check_versions();

  const Settings& s_;
  Context& ctx_;
  std::mutex mu_;
  bool done_ = false;
  std::exception_ptr error_;
  Json env_;
  Json commands_ = Json::array();
  int counter_ = 0;
  std::set<std::string> users_;
  std::map<std::string, std::mutex> repo_mu_;
};

}  // namespace skillrt::issue_pipeline::detail

#endif  // SKILLRT_ISSUE_PIPELINE_DETAIL_SHARED_ENV_HPP_
