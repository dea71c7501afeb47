#include "host/runtime.hpp"

#include <spdlog/spdlog.h>

#include <boost/dll/runtime_symbol_info.hpp>
#include <cstdlib>
#include <set>

#include "common/path_list.hpp"
#include "exec/builtin_skills.hpp"
#include "host/host_api.hpp"

namespace skillrt::host {

std::vector<std::filesystem::path> default_skills_dirs(const std::vector<std::string>& extra) {
  std::vector<std::filesystem::path> dirs(extra.begin(), extra.end());
  if (const char* env = std::getenv("SKILLRT_SKILLS_PATH")) append_path_list(env, dirs);
  std::error_code ec;
  const auto exe = boost::dll::program_location(ec);
  if (!ec) {
    dirs.push_back(std::filesystem::path(exe.parent_path().string()) / ".." / "share" / "skillrt" /
                   "skills");
  }
#ifdef SKILLRT_SOURCE_SKILLS_DIR
  // A build tree has no share/: its SKILL.md files are the sources themselves.
  dirs.emplace_back(SKILLRT_SOURCE_SKILLS_DIR);
#endif
  return dirs;
}

Runtime::Runtime(const RuntimeOptions& options)
    : skills_dirs_(default_skills_dirs(options.skills_dirs)) {
  // Builtins first, so a plugin that claims a builtin's name is the one reported.
  if (auto builtin = exec::register_builtin_skills(registry_); !builtin) {
    spdlog::error("builtin skills: {}", builtin.error().message);
  }
  plugin::LoaderOptions lo;
  lo.plugin_config = options.plugin_settings;
  lo.isolate = [options](const std::filesystem::path& file, bool builtin) {
    std::string mode = options.isolation;
    if (auto it = options.plugin_isolation.find(file.stem().string());
        it != options.plugin_isolation.end()) {
      mode = it->second;
    } else if (auto any = options.plugin_isolation.find("*");
               any != options.plugin_isolation.end()) {
      mode = any->second;
    }
    if (mode == "process") return true;
    if (mode == "in-process") return false;
    return !builtin;  // third-party code runs isolated unless told otherwise
  };
  lo.load_isolated = [options](plugin::PluginRecord& record) {
    nlohmann::json settings = nlohmann::json::object();
    if (auto it = options.plugin_settings.find(record.file.stem().string());
        it != options.plugin_settings.end()) {
      settings = it->second;
    } else if (auto any = options.plugin_settings.find("*"); any != options.plugin_settings.end()) {
      settings = any->second;
    }
    auto client = std::make_shared<exec::WorkerClient>(record.file, settings, options.worker);
    return client->load(record);
  };
  loader_ = std::make_unique<plugin::Loader>(registry_, host_api(), lo);
  const auto search = plugin::default_search_path(options.plugin_paths);
  if (options.default_plugins && !search.builtin_dir.empty()) {
    loader_->load_directory(search.builtin_dir, /*builtin=*/true);
  }
  for (const auto& dir : search.extra_dirs) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(dir, ec)) {
      loader_->load_file(dir, false);
    } else {
      loader_->load_directory(dir, false);
    }
  }
  registry_.freeze();
  executor_ = std::make_unique<exec::Executor>(registry_, options.executor);
  executor_->set_router([this](std::string_view text) -> Result<nlohmann::json> {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : router().rank(text)) {
      nlohmann::json entry = {{"skill", c.skill}, {"score", c.score}, {"matched", c.matched}};
      // Present only for multi-task requests: which task, in the request's order.
      if (c.task > 0) entry["task"] = c.task;
      out.push_back(std::move(entry));
    }
    return out;
  });
}

const router::SkillDocs& Runtime::skill_docs() {
  std::lock_guard lock(lazy_mutex_);
  if (!docs_) {
    docs_ = router::read_skills_dirs(skills_dirs_);
    for (const auto& p : docs_->problems) spdlog::info("{}: {}", p.path.string(), p.message);
  }
  return *docs_;
}

std::vector<router::DocProblem> Runtime::doc_problems() {
  const auto& docs = skill_docs();
  std::vector<std::string> names;
  for (const auto& s : registry_.all()) names.push_back(s->name);
  auto problems = docs.problems;
  auto more = router::reconcile(docs.docs, names);
  problems.insert(problems.end(), more.begin(), more.end());
  return problems;
}

const router::Router& Runtime::router() {
  const auto& docs = skill_docs();
  std::lock_guard lock(lazy_mutex_);
  if (router_) return *router_;
  std::vector<router::SkillCard> cards;
  std::set<std::string> documented;
  for (const auto& doc : docs.docs) {
    if (!registry_.find(doc.name)) continue;  // only skills that can actually run
    cards.push_back(router::to_card(doc));
    documented.insert(doc.name);
  }
  for (const auto& skill : registry_.all()) {
    if (documented.count(skill->name) == 0) {
      cards.push_back(router::SkillCard{skill->name, skill->description, {}, {}});
    }
  }
  router_ = std::make_unique<router::Router>(std::move(cards));
  return *router_;
}

}  // namespace skillrt::host
