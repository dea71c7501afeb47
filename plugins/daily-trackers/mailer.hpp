// Report delivery by e-mail through libcurl's SMTP: the HTML report is the body, the Markdown
// report rides along as an attachment. Credentials come from a config file or the environment
// and appear in no message, log line or result; the result says only where they came from.
#ifndef SKILLRT_DAILY_TRACKERS_MAILER_HPP_
#define SKILLRT_DAILY_TRACKERS_MAILER_HPP_

#include <string>
#include <vector>

#include "model.hpp"

namespace skillrt::daily_trackers {

struct MailConfig {
  std::string smtp_url;  // smtp://host:port or smtps://host:port
  std::string from;
  std::vector<std::string> to;
  std::string tls = "starttls";  // "starttls" (required), "try", or "none"; smtps:// is always TLS
  std::string username;
  std::string password;
  std::string credentials_from = "none";  // "config file <path>", "environment", "none"
  long timeout_ms = 30000;
};

struct Mail {
  std::string subject;
  std::string html;
  std::string attachment_name;
  std::string attachment;  // Markdown text
};

// Reads the request's `email` object; `config` names a YAML file with smtp_url, from, username,
// password; SKILLRT_SMTP_USER / SKILLRT_SMTP_PASSWORD (or the names given as username_env /
// password_env) override it. Throws InputError naming the field or file.
MailConfig mail_config_from(const Json& email);

// Throws std::runtime_error naming the server and libcurl's reason (never a credential).
void send_mail(const MailConfig& config, const Mail& mail);

}  // namespace skillrt::daily_trackers

#endif  // SKILLRT_DAILY_TRACKERS_MAILER_HPP_
