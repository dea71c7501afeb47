#include "mailer.hpp"

#include <curl/curl.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <memory>

namespace skillrt::daily_trackers {
namespace {

std::string base64(const std::string& in) {
  static const char kTable[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  while (i + 2 < in.size()) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                       (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out += {kTable[(v >> 18) & 63], kTable[(v >> 12) & 63], kTable[(v >> 6) & 63], kTable[v & 63]};
    i += 3;
  }
  if (i + 1 == in.size()) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += {kTable[(v >> 18) & 63], kTable[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const unsigned v =
        (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += {kTable[(v >> 18) & 63], kTable[(v >> 12) & 63], kTable[(v >> 6) & 63], '='};
  }
  return out;
}

// RFC 2047: a header with non-ASCII text (a Chinese subject) travels as an encoded word.
std::string header_text(const std::string& s) {
  for (unsigned char c : s) {
    if (c >= 0x80 || c == '\r' || c == '\n') return "=?UTF-8?B?" + base64(s) + "?=";
  }
  return s;
}

std::string rfc2822_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

void read_config_file(const std::string& path, MailConfig* c) {
  YAML::Node n;
  try {
    n = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw InputError("email.config '" + path + "' cannot be read as YAML (" + e.msg +
                     "); it should map smtp_url, from, username, password");
  }
  if (!n.IsMap()) throw InputError("email.config '" + path + "' must be a YAML mapping");
  if (n["smtp_url"]) c->smtp_url = n["smtp_url"].as<std::string>();
  if (n["from"]) c->from = n["from"].as<std::string>();
  if (n["tls"]) c->tls = n["tls"].as<std::string>();
  if (n["username"]) c->username = n["username"].as<std::string>();
  if (n["password"]) c->password = n["password"].as<std::string>();
  if (n["username"] || n["password"]) c->credentials_from = "config file " + path;
}

}  // namespace

MailConfig mail_config_from(const Json& email) {
  MailConfig c;
  if (email.contains("config")) read_config_file(email["config"].get<std::string>(), &c);
  c.smtp_url = email.value("smtp_url", c.smtp_url);
  c.from = email.value("from", c.from);
  c.tls = email.value("tls", c.tls);
  c.timeout_ms = email.value("timeout_ms", c.timeout_ms);
  c.to = email.value("to", std::vector<std::string>{});
  const std::string user_env = email.value("username_env", std::string("SKILLRT_SMTP_USER"));
  const std::string pass_env = email.value("password_env", std::string("SKILLRT_SMTP_PASSWORD"));
  if (const char* u = std::getenv(user_env.c_str()); u != nullptr && *u != '\0') {
    c.username = u;
    c.credentials_from = "environment";
  }
  if (const char* p = std::getenv(pass_env.c_str()); p != nullptr && *p != '\0') {
    c.password = p;
    c.credentials_from = "environment";
  }
  if (c.smtp_url.empty()) {
    throw InputError("email: no smtp_url (e.g. smtp://mail.example.com:587) in the request or " +
                     std::string("in email.config"));
  }
  if (c.smtp_url.rfind("smtp://", 0) != 0 && c.smtp_url.rfind("smtps://", 0) != 0) {
    throw InputError("email.smtp_url '" + c.smtp_url + "' must start with smtp:// or smtps://");
  }
  if (c.from.empty()) throw InputError("email: no `from` address in the request or email.config");
  if (c.to.empty()) throw InputError("email.to is empty: name at least one recipient");
  if (c.tls != "starttls" && c.tls != "try" && c.tls != "none") {
    throw InputError("email.tls '" + c.tls + "' must be starttls, try or none");
  }
  return c;
}

void send_mail(const MailConfig& c, const Mail& m) {
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) throw std::runtime_error("libcurl could not start an SMTP session");
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, c.smtp_url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c.timeout_ms);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c.timeout_ms);
  curl_easy_setopt(h, CURLOPT_MAIL_FROM, ("<" + c.from + ">").c_str());
  const bool implicit_tls = c.smtp_url.rfind("smtps://", 0) == 0;
  if (!implicit_tls && c.tls != "none") {
    curl_easy_setopt(h, CURLOPT_USE_SSL,
                     static_cast<long>(c.tls == "try" ? CURLUSESSL_TRY : CURLUSESSL_ALL));
  }
  if (!c.username.empty()) curl_easy_setopt(h, CURLOPT_USERNAME, c.username.c_str());
  if (!c.password.empty()) curl_easy_setopt(h, CURLOPT_PASSWORD, c.password.c_str());
  curl_slist* rcpt = nullptr;
  std::string to_header;
  for (const std::string& t : c.to) {
    rcpt = curl_slist_append(rcpt, ("<" + t + ">").c_str());
    to_header += (to_header.empty() ? "" : ", ") + t;
  }
  curl_easy_setopt(h, CURLOPT_MAIL_RCPT, rcpt);
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, ("Date: " + rfc2822_now()).c_str());
  headers = curl_slist_append(headers, ("From: " + c.from).c_str());
  headers = curl_slist_append(headers, ("To: " + to_header).c_str());
  headers = curl_slist_append(headers, ("Subject: " + header_text(m.subject)).c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_mime* mime = curl_mime_init(h);
  curl_mimepart* body = curl_mime_addpart(mime);
  curl_mime_data(body, m.html.data(), m.html.size());
  curl_mime_type(body, "text/html; charset=utf-8");
  curl_mime_encoder(body, "quoted-printable");
  curl_mimepart* att = curl_mime_addpart(mime);
  curl_mime_data(att, m.attachment.data(), m.attachment.size());
  curl_mime_type(att, "text/markdown; charset=utf-8");
  curl_mime_filename(att, m.attachment_name.c_str());
  curl_mime_encoder(att, "base64");
  curl_easy_setopt(h, CURLOPT_MIMEPOST, mime);
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  const CURLcode rc = curl_easy_perform(h);
  curl_mime_free(mime);
  curl_slist_free_all(headers);
  curl_slist_free_all(rcpt);
  if (rc != CURLE_OK) {
    throw std::runtime_error("sending the report to " + c.smtp_url +
                             " failed: " + (error[0] != '\0' ? error : curl_easy_strerror(rc)) +
                             "; check email.smtp_url, email.tls and the SMTP credentials");
  }
}

}  // namespace skillrt::daily_trackers
