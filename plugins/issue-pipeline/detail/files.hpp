// Atomic state files and the per-case lock.
#ifndef SKILLRT_ISSUE_PIPELINE_DETAIL_FILES_HPP_
#define SKILLRT_ISSUE_PIPELINE_DETAIL_FILES_HPP_

#include <string>

namespace skillrt::issue_pipeline::detail {

// Writes `text` to `path` through a temp file in the same directory, fsync and rename, then
// fsyncs the directory: a reader (or a resumed run) sees the old file or the new one, never half.
// Throws std::runtime_error naming the file.
void write_atomic(const std::string& path, const std::string& text);

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
