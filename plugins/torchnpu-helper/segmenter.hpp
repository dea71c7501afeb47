// Turns text into index terms for SQLite FTS5 (our own segmentation, fed to the unicode61
// tokenizer as space-separated words): code identifiers kept whole and also split into their
// parts, so `npu_fusion_attention`, `torch_npu.npu_fusion_attention` and `sparse_mode` match as
// written and by part; Chinese as overlapping character bigrams; English words lower-cased with
// a light plural strip. The same function serves documents and questions, so both sides agree.
#ifndef SKILLRT_TORCHNPU_HELPER_SEGMENTER_HPP_
#define SKILLRT_TORCHNPU_HELPER_SEGMENTER_HPP_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace skillrt::torchnpu_helper {

// Drops Markdown backslash escapes (`TASK\_QUEUE\_ENABLE` -> `TASK_QUEUE_ENABLE`) and backticks.
std::string normalize_markdown(std::string_view text);

// Index terms in text order, repeated as often as they occur.
std::vector<std::string> segment(std::string_view text);

// The terms joined by spaces: the form stored in the FTS5 table.
std::string segment_for_index(std::string_view text);

struct QueryTerm {
  std::string text;                   // the term as indexed
  std::vector<std::string> synonyms;  // other indexed forms that count as the same term
  bool identifier = false;            // a code token: names an API, a variable or a version
  bool part = false;    // a piece of a longer code token of the question ("npu" of "torch_npu")
  std::string surface;  // the word as written, lower-cased, before stemming ("scale", not "scal")
};

// How many indexed passages hold a term; lets a question be cut into the words the docs use.
using TermFrequency = std::function<int64_t(const std::string&)>;

// The question's distinct terms without question words, each English word with the Chinese
// forms the docs use for it (most pages are Chinese; many questions are English).
//
// Documents keep every overlapping bigram of a Chinese run, but most bigrams of a question cut
// across two words ("内存快照" also yields "存快"), and such cuts read as topic words the docs
// lack. Given `frequency`, each Chinese run of the question is instead cut into the
// non-overlapping bigrams the docs use most (dynamic programming over log document frequency),
// and only those become terms. Without it every bigram is kept.
std::vector<QueryTerm> segment_question(std::string_view question,
                                        const TermFrequency& frequency = {});

enum class Language { kZh, kEn, kMixed };

// zh when the prose is Chinese (code tokens aside), en when there is no Chinese, else mixed.
Language detect_language(std::string_view question);
const char* language_name(Language language);

}  // namespace skillrt::torchnpu_helper

#endif  // SKILLRT_TORCHNPU_HELPER_SEGMENTER_HPP_
