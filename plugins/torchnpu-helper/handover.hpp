// Requests that ask for work rather than knowledge (a traceback to diagnose, an operator to
// adapt, a CUDA project to migrate) belong to another skill; this names it and says why.
#ifndef SKILLRT_TORCHNPU_HELPER_HANDOVER_HPP_
#define SKILLRT_TORCHNPU_HELPER_HANDOVER_HPP_

#include <string>
#include <string_view>
#include <vector>

#include "segmenter.hpp"

namespace skillrt::torchnpu_helper {

struct Handover {
  std::string skill;
  bool task = false;  // the request is this skill's job; false: the skill knows more on the topic
  std::string reason;
};

std::vector<Handover> detect_handover(std::string_view question, Language language);

}  // namespace skillrt::torchnpu_helper

#endif  // SKILLRT_TORCHNPU_HELPER_HANDOVER_HPP_
