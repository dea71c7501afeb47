#include "router/router.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>
#include <utility>

#include "router/detail/analyzer.hpp"

namespace skillrt::router {

namespace {

using detail::Term;
using detail::TermKind;

// How much each card field says about a skill: its name and the keywords its author chose
// are stronger evidence than a word somewhere in a long description.
constexpr double kNameWeight = 3.0;
constexpr double kKeywordWeight = 2.0;
constexpr double kDescriptionWeight = 1.0;
constexpr double kExampleWeight = 1.0;

// BM25 saturation: repeating a word in a card helps less and less; long cards are damped
// only mildly because rich cards are a feature, not noise.
constexpr double kK1 = 1.2;
constexpr double kB = 0.4;

// Request-side weights by term origin: a character bigram is weak evidence on its own.
double query_weight(TermKind kind) {
  switch (kind) {
    case TermKind::kWord:
      return 1.0;
    case TermKind::kConcept:
      return 0.7;
    case TermKind::kCjkWord:
      return 1.0;
    case TermKind::kCjkBigram:
      return 0.3;
  }
  return 0.0;
}

struct Posting {
  uint32_t skill;
  float weight;  // idf * saturated tf
};

struct QueryTerm {
  std::string text;
  std::string display;
  double weight = 0.0;
  int64_t id = -1;  // -1: the term occurs in no card
};

std::string display_of(const Term& t) {
  if (t.kind == TermKind::kConcept && t.surface != t.text) return t.surface + "→" + t.text;
  return t.kind == TermKind::kWord ? t.text : t.surface;
}

}  // namespace

struct Router::Index {
  std::vector<SkillCard> cards;
  std::unordered_map<std::string, uint32_t, detail::TransparentHash, std::equal_to<>> term_ids;
  std::vector<double> idf;
  std::vector<std::vector<Posting>> postings;  // by term id, sorted by skill
  double unseen_idf = 0.0;

  explicit Index(std::vector<SkillCard> in) : cards(std::move(in)) { build(); }

  void build() {
    const auto& lexicon = detail::Lexicon::builtin();
    size_t n = cards.size();
    std::vector<std::unordered_map<std::string, double>> tf(n);
    std::vector<double> length(n, 0.0);
    auto add = [&](size_t s, std::string_view text, double field_weight) {
      for (Term& t : detail::analyze(text, lexicon)) {
        double w = field_weight * (t.kind == TermKind::kCjkBigram ? 0.5 : 1.0);
        tf[s][std::move(t.text)] += w;
        length[s] += w;
      }
    };
    for (size_t s = 0; s < n; ++s) {
      const SkillCard& card = cards[s];
      std::string name = card.name;
      std::replace(name.begin(), name.end(), '-', ' ');
      add(s, name, kNameWeight);
      add(s, card.description, kDescriptionWeight);
      for (const auto& k : card.keywords) add(s, k, kKeywordWeight);
      for (const auto& e : card.examples) add(s, e, kExampleWeight);
    }
    double avg_length = 0.0;
    for (double l : length) avg_length += l;
    avg_length = n > 0 ? avg_length / static_cast<double>(n) : 1.0;
    if (avg_length <= 0.0) avg_length = 1.0;

    for (size_t s = 0; s < n; ++s) {
      for (const auto& [text, _] : tf[s]) {
        auto [it, inserted] =
            term_ids.try_emplace(text, static_cast<uint32_t>(postings.size()));
        if (inserted) postings.emplace_back();
        postings[it->second].push_back(Posting{static_cast<uint32_t>(s), 0.0F});
      }
    }
    auto total = static_cast<double>(n);
    unseen_idf = std::log(1.0 + (total + 0.5) / 0.5);
    idf.resize(postings.size());
    for (const auto& [text, id] : term_ids) {
      auto df = static_cast<double>(postings[id].size());
      idf[id] = std::log(1.0 + (total - df + 0.5) / (df + 0.5));
      for (Posting& p : postings[id]) {
        double f = tf[p.skill].at(text);
        double norm = kK1 * (1.0 - kB + kB * length[p.skill] / avg_length);
        p.weight = static_cast<float>(idf[id] * f * (kK1 + 1.0) / (f + norm));
      }
    }
  }

  std::vector<QueryTerm> query_terms(std::string_view text) const {
    std::vector<Term> terms = detail::analyze(text, detail::Lexicon::builtin());
    std::vector<QueryTerm> out;
    out.reserve(terms.size());
    for (const Term& t : terms) {
      double w = query_weight(t.kind);
      auto same = std::find_if(out.begin(), out.end(),
                               [&](const QueryTerm& q) { return q.text == t.text; });
      if (same != out.end()) {
        // The strongest reading of a term wins: "算子" as a lexicon word beats its bigram.
        if (w > same->weight) {
          same->weight = w;
          same->display = display_of(t);
        }
        continue;
      }
      QueryTerm q{t.text, display_of(t), w, -1};
      if (auto it = term_ids.find(q.text); it != term_ids.end()) q.id = it->second;
      out.push_back(std::move(q));
    }
    return out;
  }
};

double Calibration::apply(const Features& f) const {
  double z = bias + w_raw * std::log1p(f.raw) + w_coverage * f.coverage + w_margin * f.margin;
  return 1.0 / (1.0 + std::exp(-z));
}

Router::Router(std::vector<SkillCard> cards, double threshold)
    : Router(std::move(cards), threshold, Calibration::fitted()) {}

Router::Router(std::vector<SkillCard> cards, double threshold, Calibration calibration)
    : index_(std::make_unique<const Index>(std::move(cards))),
      threshold_(threshold),
      calibration_(calibration) {}

Router::~Router() = default;
Router::Router(Router&&) noexcept = default;
Router& Router::operator=(Router&&) noexcept = default;

const std::vector<SkillCard>& Router::cards() const { return index_->cards; }

std::vector<ScoredSkill> Router::score(std::string_view text) const {
  const Index& ix = *index_;
  std::vector<QueryTerm> terms = ix.query_terms(text);
  size_t n = ix.cards.size();
  std::vector<double> raw(n, 0.0), mass(n, 0.0);
  double query_mass = 0.0;
  for (const QueryTerm& q : terms) {
    if (q.id < 0) {
      query_mass += q.weight * ix.unseen_idf;
      continue;
    }
    auto id = static_cast<size_t>(q.id);
    query_mass += q.weight * ix.idf[id];
    for (const Posting& p : ix.postings[id]) {
      raw[p.skill] += q.weight * p.weight;
      mass[p.skill] += q.weight * ix.idf[id];
    }
  }
  std::vector<ScoredSkill> out;
  for (size_t s = 0; s < n; ++s) {
    if (raw[s] <= 0.0) continue;
    ScoredSkill scored;
    scored.card = s;
    scored.features.raw = raw[s];
    scored.features.coverage = query_mass > 0.0 ? std::min(1.0, mass[s] / query_mass) : 0.0;
    out.push_back(scored);
  }
  std::sort(out.begin(), out.end(), [&](const ScoredSkill& a, const ScoredSkill& b) {
    if (a.features.raw != b.features.raw) return a.features.raw > b.features.raw;
    return ix.cards[a.card].name < ix.cards[b.card].name;
  });
  for (size_t i = 0; i < out.size(); ++i) {
    double best_other = 0.0;
    if (i == 0) {
      best_other = out.size() > 1 ? out[1].features.raw : 0.0;
    } else {
      best_other = out[0].features.raw;
    }
    double r = out[i].features.raw;
    out[i].features.margin = std::clamp((r - best_other) / r, -1.0, 1.0);
    out[i].score = calibration_.apply(out[i].features);
  }
  return out;
}

std::vector<Candidate> Router::ranked(std::string_view text, size_t top_k,
                                      bool apply_threshold) const {
  const Index& ix = *index_;
  std::vector<ScoredSkill> scored = score(text);
  std::vector<Candidate> out;
  if (scored.empty() || top_k == 0) return out;
  std::vector<QueryTerm> terms = ix.query_terms(text);
  for (const ScoredSkill& s : scored) {
    if (out.size() >= top_k) break;
    if (apply_threshold && s.score < threshold_) continue;
    // Explanations: the request terms that found this skill, by how much they added.
    std::vector<std::pair<double, std::string>> hits;
    for (const QueryTerm& q : terms) {
      if (q.id < 0) continue;
      const auto& list = ix.postings[static_cast<size_t>(q.id)];
      auto it = std::lower_bound(
          list.begin(), list.end(), s.card,
          [](const Posting& p, size_t skill) { return p.skill < skill; });
      if (it == list.end() || it->skill != s.card) continue;
      hits.emplace_back(q.weight * it->weight, q.display);
    }
    std::stable_sort(hits.begin(), hits.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    Candidate c{ix.cards[s.card].name, s.score, {}};
    for (auto& [_, display] : hits) {
      if (std::find(c.matched.begin(), c.matched.end(), display) != c.matched.end()) continue;
      c.matched.push_back(std::move(display));
      if (c.matched.size() == 8) break;
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Candidate> Router::rank(std::string_view text, size_t top_k) const {
  return ranked(text, top_k, true);
}

std::vector<Candidate> Router::rank_all(std::string_view text, size_t top_k) const {
  return ranked(text, top_k, false);
}

}  // namespace skillrt::router
