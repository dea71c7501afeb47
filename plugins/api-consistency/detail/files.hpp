// Atomic file output confined to one directory.
#ifndef SKILLRT_API_CONSISTENCY_DETAIL_FILES_HPP_
#define SKILLRT_API_CONSISTENCY_DETAIL_FILES_HPP_

#include <string>

namespace skillrt::apic::detail {

// Writes `content` to root/relative through a temporary file and rename, so readers never see a
// half-written file. Throws std::runtime_error when `relative` escapes `root` or the write fails.
std::string write_atomic(const std::string& root, const std::string& relative,
                         const std::string& content);

// The path `relative` would get under `root`, checked to stay inside it.
std::string confined_path(const std::string& root, const std::string& relative);

// A file or directory name made of [A-Za-z0-9._-] only.
std::string safe_name(const std::string& s);

}  // namespace skillrt::apic::detail

#endif  // SKILLRT_API_CONSISTENCY_DETAIL_FILES_HPP_
