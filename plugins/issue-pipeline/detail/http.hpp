// One JSON POST through libcurl, for opening pull requests.
#ifndef SKILLRT_ISSUE_PIPELINE_DETAIL_HTTP_HPP_
#define SKILLRT_ISSUE_PIPELINE_DETAIL_HTTP_HPP_

#include <string>
#include <vector>

namespace skillrt::issue_pipeline::detail {

struct HttpResponse {
  long status = 0;
  std::string body;
  std::string error;  // transport error (connection refused, timeout); empty when a reply came
};

HttpResponse http_post_json(const std::string& url, const std::vector<std::string>& headers,
                            const std::string& body, long timeout_s);

}  // namespace skillrt::issue_pipeline::detail

#endif  // SKILLRT_ISSUE_PIPELINE_DETAIL_HTTP_HPP_
