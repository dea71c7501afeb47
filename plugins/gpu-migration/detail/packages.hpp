// The dependencies a project declares (requirements files, pyproject.toml, setup.py, setup.cfg),
// each with its NPU status from the documented table data/packages.json, or "unknown".
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_PACKAGES_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_PACKAGES_HPP_

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::gpu_migration::detail {

// Whether a file name is one the dependency reader understands.
bool is_packaging_file(std::string_view file_name);

// The declared dependencies of one packaging file: [{file, line, name, spec, group, source_kind
// (requirements, pep621, poetry, setup.py, setup.cfg, git), status, npu, source}]. `rel` names
// the file in the output. Never throws on malformed text: what cannot be read is skipped.
nlohmann::json read_dependencies(std::string_view text, const std::string& rel);

}  // namespace skillrt::gpu_migration::detail

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_PACKAGES_HPP_
