// Rewriting notebooks in place: only the "source" values of changed code cells are replaced in
// the file's JSON text, so outputs, metadata, key order and the file's own layout stay as they
// were (re-serializing the whole document would reformat it and churn every diff).
#ifndef SKILLRT_GPU_MIGRATION_DETAIL_NOTEBOOK_HPP_
#define SKILLRT_GPU_MIGRATION_DETAIL_NOTEBOOK_HPP_

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "detail/rewrite.hpp"

namespace skillrt::gpu_migration::detail {

// Where a cell's "source" value lies in the notebook text, [begin, end), and its "cell_type".
struct CellSourceSpan {
  size_t cell = 0;  // index in "cells"
  std::string cell_type;
  size_t begin = 0;
  size_t end = 0;
  bool is_array = false;  // a list of lines (the usual form) rather than one string
};

// The spans of every cell that has a "source"; throws invalid_argument naming `path` when the
// text is not a notebook this reader understands.
std::vector<CellSourceSpan> locate_cell_sources(std::string_view json, const std::string& path);

// nbformat's multi-line string: one element per line, each keeping its "\n", the last without.
std::vector<std::string> notebook_lines(std::string_view source);

// `source` as a JSON value in the style of `original` (the value it replaces): a list of lines
// laid out with the original's indentation, or one string.
std::string render_cell_source(std::string_view original, std::string_view source);

// The notebook text with the given cells' sources replaced (cell index -> new source) and the
// line edit script from the old text to the new one, for the patch.
struct NotebookEdit {
  std::string text;
  std::vector<DiffLine> script;
};
NotebookEdit edit_notebook(std::string_view text, const std::vector<CellSourceSpan>& spans,
                           const std::map<size_t, std::string>& sources);

// The lines of `a` and `b` as an edit script (longest common subsequence); for the changed part of
// a notebook, which is a few cells, so quadratic is fine. Past `max_cells` comparisons it gives
// up on alignment and lists all of `a` removed, then all of `b` added: still a correct patch.
std::vector<DiffLine> diff_lines(const std::vector<std::string_view>& a,
                                 const std::vector<std::string_view>& b,
                                 size_t max_cells = size_t{1} << 22);

}  // namespace skillrt::gpu_migration::detail

#endif  // SKILLRT_GPU_MIGRATION_DETAIL_NOTEBOOK_HPP_
