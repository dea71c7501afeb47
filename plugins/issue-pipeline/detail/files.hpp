// Timestamps and the per-case lock (state files are written with plugin_io::write_file_atomic).
#ifndef SKILLRT_ISSUE_PIPELINE_DETAIL_FILES_HPP_
#define SKILLRT_ISSUE_PIPELINE_DETAIL_FILES_HPP_

#include <string>

namespace skillrt::issue_pipeline::detail {

// UTC, ISO 8601 with milliseconds.
std::string now_utc();

// An exclusive advisory lock held for the object's lifetime; released by the kernel when the
// process dies, so a killed run never blocks its resume.
class FileLock {
 public:
  explicit FileLock(const std::string& path);  // throws when another process holds it
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace skillrt::issue_pipeline::detail

#endif  // SKILLRT_ISSUE_PIPELINE_DETAIL_FILES_HPP_
