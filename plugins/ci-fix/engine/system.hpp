// Processes and files: running linters (argv, no shell), reading files, atomic writes.
#ifndef SKILLRT_CI_FIX_ENGINE_SYSTEM_HPP_
#define SKILLRT_CI_FIX_ENGINE_SYSTEM_HPP_

#include <optional>
#include <string>
#include <vector>

namespace skillrt::ci_fix {

struct CommandResult {
  std::vector<std::string> argv;
  std::string cwd;
  bool started = false;
  std::string error;  // why it did not start, or that it timed out
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs argv[0] (searched on PATH unless it contains '/') in `cwd`, stdin from /dev/null, and
// collects stdout and stderr. Kills it after `timeout_s` seconds.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& cwd,
                          int timeout_s = 300);

// The absolute path of `name` on PATH, or empty.
std::string find_program(const std::string& name);

// How a command line reads in a report: argv joined with shell quoting where needed.
std::string shell_quote(const std::vector<std::string>& argv);

std::optional<std::string> read_file(const std::string& path);
// realpath(3), or empty when the path does not resolve.
std::string real_path(const std::string& path);
bool is_symlink(const std::string& path);
bool is_regular_file(const std::string& path);
bool is_directory(const std::string& path);

// Writes `content` to `path` atomically through the plugin kit's write_file_atomic (temporary
// file in the same folder, the original's permissions, fsync, rename, folder fsync). Returns an
// error message naming the file, empty on success.
std::string write_atomically(const std::string& path, const std::string& content);
// Writes a file (creating parent directories) non-atomically: for scratch mirrors and reports.
std::string write_file(const std::string& path, const std::string& content);

// A fresh private directory under $TMPDIR (or /tmp); removed with remove_tree.
std::string make_temp_dir(const std::string& prefix);
void remove_tree(const std::string& path);

// Whether `path` (absolute, normalised) lies inside `root` (absolute, normalised).
bool path_inside(const std::string& root, const std::string& path);
// Lexical normalisation: removes "." and resolves ".." without touching the file system.
std::string normalize_path(const std::string& path);

}  // namespace skillrt::ci_fix

#endif  // SKILLRT_CI_FIX_ENGINE_SYSTEM_HPP_
