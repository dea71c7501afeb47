// Skills the host itself provides (plugin "skillrt"), registered like any plugin's.
#pragma once

#include "common/error.hpp"
#include "registry/registry.hpp"

namespace skillrt::exec {

// Registers `find-skill` (routes free text through Executor::route_text). Errors name the skill.
Result<void> register_builtin_skills(Registry& registry);

}  // namespace skillrt::exec
