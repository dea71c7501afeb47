#include "detail/http.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace skillrt::issue_pipeline::detail {

namespace {

size_t collect(char* ptr, size_t size, size_t n, void* user) {
  auto* out = static_cast<std::string*>(user);
  // Replies are small JSON objects; a runaway server must not fill memory.
  if (out->size() < (4u << 20)) out->append(ptr, size * n);
  return size * n;
}

}  // namespace

HttpResponse http_post_json(const std::string& url, const std::vector<std::string>& headers,
                            const std::string& body, long timeout_s) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HttpResponse r;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) {
    r.error = "curl_easy_init failed";
    return r;
  }
  curl_slist* list = nullptr;
  list = curl_slist_append(list, "Content-Type: application/json");
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> guard(list, &curl_slist_free_all);
  char err[CURL_ERROR_SIZE] = {0};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "skillrt-issue-pipeline/1.0");
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
  // Proxies from the environment would send a localhost API call elsewhere.
  curl_easy_setopt(c, CURLOPT_NOPROXY, "127.0.0.1,localhost,::1");
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    r.error = err[0] != 0 ? std::string(err) : curl_easy_strerror(rc);
    return r;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

}  // namespace skillrt::issue_pipeline::detail
