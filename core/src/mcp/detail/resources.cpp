// Resources (SKILL.md files, templates, the report files a call wrote) and list paging.
#include <charconv>
#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include "mcp/detail/jsonrpc.hpp"
#include "mcp/detail/server_impl.hpp"

namespace skillrt::mcp {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace detail;

namespace {

constexpr size_t kMaxReportScan = 1000;

}  // namespace

namespace detail {

std::optional<size_t> parse_cursor(const json& params, size_t size) {
  if (!params.contains("cursor") || params["cursor"].is_null()) return 0;
  if (!params["cursor"].is_string()) return std::nullopt;
  const std::string& c = params["cursor"].get_ref<const std::string&>();
  size_t offset = 0;
  const auto [ptr, ec] = std::from_chars(c.data(), c.data() + c.size(), offset);
  if (ec != std::errc() || ptr != c.data() + c.size() || offset > size) return std::nullopt;
  return offset;
}

}  // namespace detail

std::string Server::Impl::list_page(const std::vector<json>& items, const char* key,
                                    const json& params, const std::string& id_text) {
  const auto offset = parse_cursor(params, items.size());
  if (!offset) {
    return error_message(id_text, kInvalidParams,
                         "Invalid params: unknown cursor; pass the nextCursor of the previous "
                         "page, or none for the first");
  }
  const size_t page = std::max<size_t>(1, options.page_size);
  json result = {{key, json::array()}};
  for (size_t i = *offset; i < std::min(items.size(), *offset + page); ++i) {
    result[key].push_back(items[i]);
  }
  if (*offset + page < items.size()) result["nextCursor"] = std::to_string(*offset + page);
  return result_message(id_text, dump(result));
}

bool Server::Impl::resource_known(Session& s, const std::string& uri) {
  {
    std::lock_guard lock(s.mutex);
    if (s.reports.contains(uri)) return true;
  }
  for (const auto& r : catalog.resources()) {
    if (r.descriptor.value("uri", "") == uri) return true;
  }
  std::map<std::string, std::string> vars;
  for (const auto& t : catalog.templates()) {
    if (match_uri_template(t.descriptor.value("uriTemplate", ""), uri, vars)) return true;
  }
  return false;
}

std::string Server::Impl::read_resource(Session& s, const std::string& id_text,
                                        const json& params) {
  const auto uri_it = params.find("uri");
  if (uri_it == params.end() || !uri_it->is_string()) {
    return error_message(id_text, kInvalidParams,
                         "Invalid params: resources/read needs \"uri\" (a string)");
  }
  const std::string uri = uri_it->get<std::string>();
  std::optional<fs::path> report;
  {
    std::lock_guard lock(s.mutex);
    if (auto it = s.reports.find(uri); it != s.reports.end()) report = it->second;
  }
  if (report) {
    std::ifstream in(*report, std::ios::binary);
    if (!in) {
      return error_message(id_text, kInternalError,
                           "Internal error: cannot read '" + report->string() +
                               "' any more; run the tool that wrote it again");
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string mime = mime_type_for(*report);
    json content = {{"uri", uri}, {"mimeType", mime}};
    if (is_text_mime(mime)) {
      content["text"] = bytes;
    } else {
      content["blob"] = base64_encode(bytes);
    }
    return result_message(id_text, dump(json{{"contents", json::array({content})}}));
  }
  auto found = catalog.read(uri);
  if (!found) {
    const json data = {{"uri", uri}};
    return error_message(id_text, kResourceNotFound,
                         "Resource not found: '" + uri + "'; list them with resources/list", &data);
  }
  if (!*found) {
    return error_message(id_text, kInternalError, "Internal error: " + found->error().message);
  }
  return result_message(id_text, dump(json{{"contents", **found}}));
}

void Server::Impl::note_reports(Session& s, const exec::Outcome& out) {
  // A report is a file the result names by absolute path and that was written during the call;
  // only such files are readable, never arbitrary paths.
  json parsed;
  const json* root = &out.result;
  if (out.result.is_null()) {
    // Checked as text only: a result naming no absolute path needs no DOM.
    if (!may_name_path(out.result_text)) return;
    parsed = json::parse(out.result_text, nullptr, false);
    root = &parsed;
  }
  const json& result = *root;
  // When the call started, on the file system's clock.
  const auto since = fs::file_time_type::clock::now() -
                     std::chrono::duration_cast<fs::file_time_type::duration>(
                         std::chrono::duration<double, std::milli>(out.elapsed_ms));
  std::vector<fs::path> found;
  size_t scanned = 0;
  std::vector<const json*> stack = {&result};
  while (!stack.empty() && scanned < kMaxReportScan) {
    const json* v = stack.back();
    stack.pop_back();
    if (v->is_string()) {
      ++scanned;
      const auto& text = v->get_ref<const std::string&>();
      if (text.size() < 2 || text.size() > 4096 || text.front() != '/') continue;
      std::error_code ec;
      const fs::path path(text);
      if (!fs::is_regular_file(path, ec)) continue;
      const auto written = fs::last_write_time(path, ec);
      // File systems keep coarse timestamps; a second of slack keeps fresh files in.
      if (!ec && written + std::chrono::seconds(1) >= since) found.push_back(path);
    } else if (v->is_structured()) {
      for (const auto& item : *v) stack.push_back(&item);
    }
  }
  if (found.empty()) return;
  bool added = false;
  Notify notify;
  {
    std::lock_guard lock(s.mutex);
    for (const auto& path : found) {
      added |= s.reports.emplace("file://" + path.string(), path).second;
    }
    notify = s.notify;
  }
  if (added && notify) {
    notify(notification_message("notifications/resources/list_changed", json::object()));
  }
}

}  // namespace skillrt::mcp
