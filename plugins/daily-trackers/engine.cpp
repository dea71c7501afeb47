#include "engine.hpp"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "git_source.hpp"  // pr-analysis: parse_date
#include "mailer.hpp"
#include "plugin_io/atomic_file.hpp"

namespace skillrt::daily_trackers {

const char* const kLlmNote =
    "LLM analysis was not available: this host does not offer MCP sampling yet, so the "
    "summaries and ratings below are the deterministic ones (rule matches, counts, measured "
    "numbers); an agent reading this report can add its own analysis.";

std::string day_of(int64_t t) { return pr_analysis::format_time(t).substr(0, 10); }

std::string today_utc() {
  return day_of(std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count());
}

int64_t date_field(const Json& in, const char* field, bool end_of_day, int64_t fallback) {
  if (!in.contains(field)) return fallback;
  const std::string text = in[field].get<std::string>();
  const auto t = pr_analysis::parse_date(text, end_of_day);
  if (!t) {
    throw InputError(std::string("`") + field + "` '" + text +
                     "' is not a date: write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)");
  }
  return *t;
}

pr_analysis::GithubOptions github_options(const Json& in, const Hooks& hooks) {
  pr_analysis::GithubOptions o =
      pr_analysis::GithubOptions::from_json(in.value("github", Json::object()));
  if (hooks.sleep) o.sleep = hooks.sleep;
  o.cancelled = hooks.cancelled;
  return o;
}

std::string output_path(const Json& in, const std::string& name) {
  const std::string dir = in.at("output_dir").get<std::string>();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw InputError("output_dir '" + dir + "' cannot be created (" + ec.message() +
                     "); pass a writable folder");
  }
  const auto p = plugin_io::path_under(dir, name);
  if (!p) throw InputError("report name '" + name + "' leaves output_dir '" + dir + "'");
  return p->string();
}

Json deliver(const Json& in, const ReportTexts& texts, const std::string& subject, Json* notes) {
  Json out{{"reports", Json::object()}};
  if (in.contains("output_dir")) {
    try {
      const std::string md = output_path(in, texts.stem + ".md");
      const std::string html = output_path(in, texts.stem + ".html");
      const std::string json = output_path(in, texts.stem + ".json");
      plugin_io::write_file_atomic(md, texts.markdown);
      plugin_io::write_file_atomic(html, texts.html);
      plugin_io::write_file_atomic(json, texts.json.dump(2));
      out["reports"] = Json{{"md", md}, {"html", html}, {"json", json}};
    } catch (const std::runtime_error& e) {
      throw InputError(e.what());
    }
  }
  if (!in.contains("email")) return out;
  const MailConfig config = mail_config_from(in["email"]);
  Json email{{"to", config.to},
             {"smtp_url", config.smtp_url},
             {"credentials_from", config.credentials_from},
             {"subject", subject}};
  try {
    send_mail(config, Mail{subject, texts.html, texts.stem + ".md", texts.markdown});
    email["sent"] = true;
  } catch (const std::runtime_error& e) {
    email["sent"] = false;
    email["error"] = e.what();
    notes->push_back(std::string("e-mail not sent: ") + e.what());
  }
  out["email"] = email;
  return out;
}

}  // namespace skillrt::daily_trackers
