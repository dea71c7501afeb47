// Where passages come from: the documentation copies embedded in the plugin (data/docs, listed
// with their repository, commit and upstream path in data/manifest.tsv) and local checkouts of
// torch_npu or op-plugin, walked for docs, sources and op yaml files.
#ifndef SKILLRT_TORCHNPU_HELPER_BUNDLE_HPP_
#define SKILLRT_TORCHNPU_HELPER_BUNDLE_HPP_

#include <stdexcept>
#include <string>
#include <vector>

#include "doc_index.hpp"

namespace skillrt::torchnpu_helper {

// A request the skill cannot act on (bad path, unreadable checkout); the message says what to do.
class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct SourceFiles {
  SourceInfo source;
  std::vector<FileEntry> entries;
};

// The embedded documentation, with upstream paths and commits from the manifest.
SourceFiles bundled_files();

// Changes whenever a bundled byte or the manifest changes; the bundled index is rebuilt then.
const std::string& bundle_id();

// Repositories the bundle copies, e.g. {"Ascend/pytorch", "Ascend/op-plugin"}.
std::vector<std::string> bundled_repos();

// Docs (*.md), sources (*.py, *.cpp, *.h, ...) and op yaml files of a checkout, without
// build outputs and third-party trees. Throws InputError when `root` is not a readable
// directory.
SourceFiles checkout_files(const std::string& root);

}  // namespace skillrt::torchnpu_helper

#endif  // SKILLRT_TORCHNPU_HELPER_BUNDLE_HPP_
