#ifndef SKILLRT_OP_TOOLS_DETAIL_SOURCE_CACHE_HPP_
#define SKILLRT_OP_TOOLS_DETAIL_SOURCE_CACHE_HPP_

#include <memory>
#include <string>

#include "optoolkit/sources.hpp"

namespace skillrt::op_tools::detail {

// Loaded sources, shared between calls: parsing a 600 KB YAML file costs tens of milliseconds,
// a lookup in a loaded one microseconds. A file is reloaded when its size or mtime changes.
// Thread-safe; holds at most a handful of files.
std::shared_ptr<const ops::OpSource> embedded_source();
std::shared_ptr<const ops::OpSource> file_source(const std::string& path);

}  // namespace skillrt::op_tools::detail

#endif  // SKILLRT_OP_TOOLS_DETAIL_SOURCE_CACHE_HPP_
