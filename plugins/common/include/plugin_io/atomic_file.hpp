// Output files for plugins that write reports or patches: whole or not at all, and only where
// the user said. Shared by domain plugins; not part of the host or the SDK.
#ifndef SKILLRT_PLUGIN_IO_ATOMIC_FILE_HPP_
#define SKILLRT_PLUGIN_IO_ATOMIC_FILE_HPP_

#include <filesystem>
#include <optional>
#include <string_view>

namespace skillrt::plugin_io {

// Writes `content` to `path` through a temporary file in the same folder: write, fsync, rename,
// then fsync the folder. A reader (or a resumed run) sees the old file or the new one, never a
// half-written one, and no temporary file is left behind on failure. A replaced file keeps its
// permissions; a new one gets 0644 less the umask. Throws std::runtime_error
// naming the file and the system's reason. Safe to call from several threads on distinct paths.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// `root`/`relative` with symlinks and ".." resolved, or nullopt when that leaves `root` ("../x",
// a symlink pointing out, an absolute path elsewhere). The path need not exist yet.
std::optional<std::filesystem::path> path_under(const std::filesystem::path& root,
                                                const std::filesystem::path& relative);

}  // namespace skillrt::plugin_io

#endif  // SKILLRT_PLUGIN_IO_ATOMIC_FILE_HPP_
