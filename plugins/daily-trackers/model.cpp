#include "model.hpp"

namespace skillrt::daily_trackers {

Json TrackedItem::to_json() const {
  Json j{{"repo", repo},
         {"key", key},
         {"kind", kind},
         {"state", state},
         {"title", title},
         {"body", body},
         {"author", author},
         {"url", url},
         {"labels", labels},
         {"files", files},
         {"linked", linked},
         {"comments", comments},
         {"created_at", created_at},
         {"updated_at", updated_at},
         {"closed_at", closed_at},
         {"merged_at", merged_at},
         {"sha", sha}};
  j["number"] = number ? Json(*number) : Json(nullptr);
  return j;
}

TrackedItem TrackedItem::from_json(const Json& j) {
  TrackedItem t;
  t.repo = j.value("repo", "");
  t.key = j.value("key", "");
  if (j.contains("number") && j["number"].is_number_integer())
    t.number = j["number"].get<int64_t>();
  t.kind = j.value("kind", "");
  t.state = j.value("state", "");
  t.title = j.value("title", "");
  t.body = j.value("body", "");
  t.author = j.value("author", "");
  t.url = j.value("url", "");
  t.labels = j.value("labels", std::vector<std::string>{});
  t.files = j.value("files", std::vector<std::string>{});
  t.linked = j.value("linked", std::vector<int64_t>{});
  t.comments = j.value("comments", int64_t{0});
  t.created_at = j.value("created_at", "");
  t.updated_at = j.value("updated_at", "");
  t.closed_at = j.value("closed_at", "");
  t.merged_at = j.value("merged_at", "");
  t.sha = j.value("sha", "");
  return t;
}

Json SourceStatus::to_json() const {
  Json j{{"name", name},       {"mode", mode},   {"ok", ok},
         {"resumed", resumed}, {"items", items}, {"stats", stats}};
  if (!error.empty()) j["error"] = error;
  return j;
}

std::string BenchPoint::key() const {
  return model + "|" + hardware + "|" + framework + "|" + precision + "|" + spec_decoding + "|" +
         (disagg ? "disagg" : "agg") + "|" + std::to_string(isl) + "|" + std::to_string(osl) +
         "|c" + std::to_string(conc) + "|g" + std::to_string(gpus);
}

std::optional<double> BenchPoint::metric(const std::string& name) const {
  auto it = metrics.find(name);
  if (it == metrics.end()) return std::nullopt;
  return it->second;
}

Json BenchPoint::to_json() const {
  return Json{{"model", model},
              {"hardware", hardware},
              {"framework", framework},
              {"precision", precision},
              {"spec_decoding", spec_decoding},
              {"disagg", disagg},
              {"isl", isl},
              {"osl", osl},
              {"conc", conc},
              {"gpus", gpus},
              {"date", date},
              {"source", source},
              {"metrics", metrics}};
}

BenchPoint BenchPoint::from_json(const Json& j) {
  BenchPoint p;
  p.model = j.value("model", "");
  p.hardware = j.value("hardware", "");
  p.framework = j.value("framework", "");
  p.precision = j.value("precision", "");
  p.spec_decoding = j.value("spec_decoding", "");
  p.disagg = j.value("disagg", false);
  p.isl = j.value("isl", int64_t{0});
  p.osl = j.value("osl", int64_t{0});
  p.conc = j.value("conc", int64_t{0});
  p.gpus = j.value("gpus", int64_t{0});
  p.date = j.value("date", "");
  p.source = j.value("source", "");
  p.metrics = j.value("metrics", std::map<std::string, double>{});
  return p;
}

}  // namespace skillrt::daily_trackers
