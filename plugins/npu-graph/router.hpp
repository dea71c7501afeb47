// The npu-graph entry's router: request text and attachments to one sub-skill, with reasons.
#ifndef SKILLRT_NPU_GRAPH_ROUTER_HPP_
#define SKILLRT_NPU_GRAPH_ROUTER_HPP_

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace skillrt::npu_graph {

class RouteTable {
 public:
  RouteTable(std::string_view yaml, const std::string& source);
  static const RouteTable& builtin();

  struct Route {
    std::string skill;
    std::vector<std::pair<std::string, double>> keywords;
  };
  struct Signal {
    std::string skill;
    double weight;
  };
  const std::vector<Route>& routes() const { return routes_; }
  const std::string& default_skill() const { return default_; }
  const Signal* signal(const std::string& name) const;

 private:
  std::vector<Route> routes_;
  std::map<std::string, Signal> signals_;
  std::string default_;
};

struct RouteDecision {
  std::string skill;
  std::map<std::string, double> scores;
  nlohmann::json reasons = nlohmann::json::array();
};

RouteDecision route_request(const nlohmann::json& input, const RouteTable& table);

// The sub-skill's input built from the entry's input; sets `missing` (and returns null) when
// the chosen sub-skill needs an attachment the request lacks.
nlohmann::json sub_skill_input(const std::string& skill, const nlohmann::json& input,
                               std::string* missing);

}  // namespace skillrt::npu_graph

#endif  // SKILLRT_NPU_GRAPH_ROUTER_HPP_
