// npu-graph-qa: BM25 retrieval over headed Markdown sections (built-in base + user docs), with
// Chinese character bigrams and English words, and an extractive, cited answer.
#ifndef SKILLRT_NPU_GRAPH_QA_HPP_
#define SKILLRT_NPU_GRAPH_QA_HPP_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace skillrt::npu_graph {

struct Section {
  std::string source;   // "npu-graph:kb/concepts.md" or a user path
  std::string heading;  // "Parent > Child"
  size_t line = 0;      // line of the heading, 1-based
  std::string text;     // body without the heading line
};

std::vector<Section> split_markdown(std::string_view text, const std::string& source);

// Lower-case English words (stop words removed) and CJK character bigrams.
std::vector<std::string> tokenize(std::string_view text);

// The same terms grouped by the word they come from: an English word first, then its derived
// forms (identifier parts, error-code families); a CJK bigram alone.
std::vector<std::vector<std::string>> tokenize_groups(std::string_view text);

// As above; with `bilingual`, the bigrams of a Chinese term of the built-in glossary form one
// group together with the English words for it (used for questions, not for indexing).
std::vector<std::vector<std::string>> tokenize_groups(std::string_view text, bool bilingual);

class Bm25Index {
 public:
  explicit Bm25Index(std::vector<Section> sections);
  struct Hit {
    size_t section;
    double score;
    double coverage;  // share of the query's idf mass this section matches
    std::vector<std::string> matched;
  };
  std::vector<Hit> search(std::string_view query, size_t k) const;
  const Section& section(size_t i) const { return sections_[i]; }
  size_t size() const { return sections_.size(); }

 private:
  double idf(const std::string& term) const;
  std::vector<std::string> near_forms(const std::string& word) const;
  std::vector<Section> sections_;
  std::vector<std::unordered_map<std::string, int>> tf_;
  std::vector<size_t> length_;
  std::unordered_map<std::string, size_t> df_;
  double avg_length_ = 0;
};

struct QaOptions {
  size_t top_k = 3;
  double min_coverage = 0.5;  // below this the best section does not answer the question
  double min_score = 2.0;
};

// Sections of the embedded knowledge base plus every *.md under `docs` directories/files.
std::vector<Section> load_knowledge(const std::vector<std::string>& docs, bool builtin);

nlohmann::json answer_question(std::string_view question, const Bm25Index& index,
                               const QaOptions& options);

nlohmann::json run_qa(const nlohmann::json& input);

}  // namespace skillrt::npu_graph

#endif  // SKILLRT_NPU_GRAPH_QA_HPP_
