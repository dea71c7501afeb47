#ifndef SKILLRT_OPTOOLKIT_DETAIL_EDIT_DISTANCE_HPP_
#define SKILLRT_OPTOOLKIT_DETAIL_EDIT_DISTANCE_HPP_

#include <cstddef>
#include <string_view>

#include "optoolkit/text.hpp"

namespace skillrt::ops::detail {

// Levenshtein distance, scaled so that a candidate sharing the query's base name (the part
// before '.') ranks above an equally distant stranger: "add.Tensr" should suggest
// "add.Tensor" before "addr.Tensor".
inline size_t name_distance(std::string_view query, std::string_view candidate) {
  const size_t distance = edit_distance(query, candidate) * 2;
  const std::string_view qbase = query.substr(0, query.find('.'));
  const std::string_view cbase = candidate.substr(0, candidate.find('.'));
  return qbase == cbase ? distance : distance + 1;
}

}  // namespace skillrt::ops::detail

#endif  // SKILLRT_OPTOOLKIT_DETAIL_EDIT_DISTANCE_HPP_
