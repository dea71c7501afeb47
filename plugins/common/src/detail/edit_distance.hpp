#ifndef SKILLRT_OPTOOLKIT_DETAIL_EDIT_DISTANCE_HPP_
#define SKILLRT_OPTOOLKIT_DETAIL_EDIT_DISTANCE_HPP_

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace skillrt::ops::detail {

// Levenshtein distance, scaled so that a candidate sharing the query's base name (the part
// before '.') ranks above an equally distant stranger: "add.Tensr" should suggest
// "add.Tensor" before "addr.Tensor".
inline size_t name_distance(std::string_view query, std::string_view candidate) {
  std::vector<size_t> prev(candidate.size() + 1);
  std::vector<size_t> cur(candidate.size() + 1);
  for (size_t j = 0; j <= candidate.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= query.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= candidate.size(); ++j) {
      const size_t sub = prev[j - 1] + (query[i - 1] == candidate[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  const size_t distance = prev[candidate.size()] * 2;
  const std::string_view qbase = query.substr(0, query.find('.'));
  const std::string_view cbase = candidate.substr(0, candidate.find('.'));
  return qbase == cbase ? distance : distance + 1;
}

}  // namespace skillrt::ops::detail

#endif  // SKILLRT_OPTOOLKIT_DETAIL_EDIT_DISTANCE_HPP_
